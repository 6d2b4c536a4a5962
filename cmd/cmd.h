/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_CMD_H
#define BLKMAP_CMD_H

#include <stdint.h>

/* Exit statuses: 0 success, 1 failure, 64 usage error (EX_USAGE). */
#define EXIT_USAGE 64

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_statedump(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_top(int argc, char **argv);

/* "64M": bytes, with K, M, G (or KiB, MiB, GiB) for powers of 1024. -1 if not a size. */
int parse_size(const char *arg, uint64_t *bytes);
/* "blkmap: MESSAGE" on stderr. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "blkmap: warning: LINE" on stderr: the library's warnings (a bm_tell_fn). */
void say_warning(const char *line);
/* "blkmap: MESSAGE" with the library's last error, then return 1. */
int fail(const char *what);

#endif
