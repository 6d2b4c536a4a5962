// SPDX-License-Identifier: GPL-2.0-only
/*
 * reformat IN OUT SYSTEM:EVENT 'PRINT FMT' [FIELD 'FIELD LINE']: IN with the
 * print format of SYSTEM:EVENT replaced (the text after "print fmt: "), and
 * with FIELD, the line of the field of that name as well (a whole line:
 * "\tfield:char buf[16];\toffset:16;\tsize:16;\tsigned:0;"). The pages
 * stay as they are: how the hostile formats of tests/data/print are made.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkmap/tracefile/reader.h"
#include "blkmap/tracefile/writer.h"
#include "blkmap/util/error.h"

/*
 * @text with its first line that holds @needle replaced by @line (a whole
 * line, its newline included); NULL if none holds it.
 */
static char *replace_line(const char *text, size_t len, const char *needle, const char *line,
			  size_t *out_len)
{
	const char *at = strstr(text, needle), *end;
	char *out;

	if (!at)
		return NULL;
	while (at > text && at[-1] != '\n')
		at--;
	end = strchr(at, '\n');
	end = end ? end + 1 : text + len;
	*out_len = (at - text) + strlen(line) + (text + len - end);
	out = malloc(*out_len + 1);
	if (out)
		sprintf(out, "%.*s%s%.*s", (int)(at - text), text, line, (int)(text + len - end), end);
	return out;
}

int main(int argc, char **argv)
{
	struct bm_trace *t;
	struct bm_trace_meta meta;
	struct bm_cpu_data *cpus;
	char name[256], *colon, *fmt, *text;
	size_t i, n, len;
	int fd, found = 0;

	if (argc != 5 && argc != 7) {
		fprintf(stderr, "usage: reformat IN OUT SYSTEM:EVENT 'PRINT FMT' [FIELD 'FIELD LINE']\n");
		return 2;
	}
	t = bm_trace_open(argv[1]);
	colon = strchr(argv[3], ':');
	if (!t || !colon) {
		fprintf(stderr, "reformat: %s\n", t ? "SYSTEM:EVENT" : bm_error_message());
		return 1;
	}
	meta = *bm_trace_get_meta(t);
	meta.formats = calloc(meta.nformats, sizeof(*meta.formats));
	cpus = calloc(meta.ncpus, sizeof(*cpus));
	snprintf(name, sizeof(name), "name: %s\n", colon + 1);
	for (i = 0; i < meta.nformats; i++) {
		struct bm_format f = bm_trace_get_meta(t)->formats[i];

		if (!strncmp(f.system, argv[3], colon - argv[3]) && !f.system[colon - argv[3]] &&
		    !strncmp(f.text, name, strlen(name))) {
			n = strlen(argv[4]) + 16;
			fmt = malloc(n);
			snprintf(fmt, n, "print fmt: %s\n", argv[4]);
			text = replace_line(f.text, f.len, "print fmt: ", fmt, &len);
			if (text && argc == 7) {
				char needle[128], line[512];

				snprintf(needle, sizeof(needle), " %s;", argv[5]);
				snprintf(line, sizeof(line), "%s\n", argv[6]);
				fmt = text;
				if (!strstr(fmt, needle))
					snprintf(needle, sizeof(needle), " %s[", argv[5]);
				text = replace_line(fmt, len, needle, line, &len);
			}
			if (!text) {
				fprintf(stderr, "reformat: %s has no such line\n", argv[3]);
				return 1;
			}
			f.text = text;
			f.len = len;
			found = 1;
		}
		meta.formats[i] = f;
	}
	if (!found) {
		fprintf(stderr, "reformat: no format %s in %s\n", argv[3], argv[1]);
		return 1;
	}
	for (i = 0; i < (size_t)meta.ncpus; i++)
		cpus[i] = *bm_trace_cpu(t, i);
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || bm_trace_write(fd, argv[2], &meta, cpus) < 0 || close(fd) < 0) {
		fprintf(stderr, "reformat: cannot write %s: %s\n", argv[2], bm_error_message());
		return 1;
	}
	return 0;
}
