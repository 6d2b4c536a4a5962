/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_TRACEFILE_PRINTFMT_H
#define BLKMAP_TRACEFILE_PRINTFMT_H

/*
 * Printing events through their print formats, as libtraceevent does,
 * only where that stays within the record (printfmt.c). libtraceevent
 * trusts a format: `__print_hex(REC->buf, 1000000)` reads a megabyte
 * past a 40-byte record, `"%*s", 999999999, ...` takes minutes. Each
 * event's parsed print arguments are checked once, when the printer is
 * made: every field they name found, every length, width and precision
 * a number it can bound. Those that depend on the record (a length read
 * from a field, a __get_str()'s terminator, a __print_array() of a
 * dynamic array) are checked again on each record, before it is printed.
 * A record that fails is printed by its fields alone, and the printer's
 * caller is told once per event type which event and why.
 *
 * Cost: a walk of the event's arguments per record only for the events
 * whose formats read lengths from their records; otherwise a check of the
 * record's size against its fields.
 */
#include <stdbool.h>

#include "blkmap/util/tell.h"

struct tep_handle;
struct tep_record;
struct trace_seq;

struct bm_printer;

/*
 * A printer for the events of @tep, whose plugins (if any) are loaded:
 * every event's print format checked. @warn (may be NULL) hears of the
 * events printed by their fields alone, once each. NULL without memory.
 */
struct bm_printer *bm_printer_new(struct tep_handle *tep, bm_tell_fn warn);
void bm_printer_free(struct bm_printer *p);

/*
 * Append @rec's details to @s: what tep_print_event()'s TEP_PRINT_INFO
 * prints when its format holds for @rec, else its fields ("name=value"),
 * or "(record shorter than its format says)" if @rec does not even hold
 * them. @type: its event id (its common_type, as the reader read it).
 * Safe from several threads at once on one printer.
 */
void bm_printer_print(struct bm_printer *p, struct trace_seq *s, struct tep_record *rec,
		      int type);

/*
 * Whether printing an event of @tep, plugins loaded, may change what other
 * threads read of it: a handler that learns commands as it prints (those
 * of plugin_sched_switch register sched_switch's and sched_wakeup's). The
 * handlers of libtraceevent's function plugin (ftrace's function,
 * kernel_stack, raw_data and func_repeats) only print; any other handler
 * is taken to learn.
 */
bool bm_printing_learns(struct tep_handle *tep);

/*
 * Why the event with id @id is never printed by its format (what the
 * warning says); NULL if its records may be.
 */
const char *bm_printer_refusal(const struct bm_printer *p, int id);

#endif
