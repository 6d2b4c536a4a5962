// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hostile print formats, printed through the checking printer: each record
 * sits at the very end of a page followed by an inaccessible one, so that
 * a byte read past it faults in any build. A format that would read past
 * its record, pad for minutes or divide by zero prints the record's fields
 * and warns once; a sound one prints as libtraceevent prints it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "blkmap/tracefile/printfmt.h"

#include "helpers.h"

#define COMMON \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* ftrace:print's layout: a number, then text to the record's end. */
#define PRINT_FIELDS \
	"name: print\nID: 5\n" COMMON \
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n" \
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n\n"

/* A dynamic string, as __string() makes them. */
#define DYN_FIELDS \
	"name: dyn\nID: 7\n" COMMON \
	"\tfield:unsigned int len;\toffset:8;\tsize:4;\tsigned:0;\n" \
	"\tfield:__data_loc char[] msg;\toffset:12;\tsize:4;\tsigned:1;\n\n"

static struct tep_handle *tep;
static struct bm_printer *printer;
static struct trace_seq seq;
static char warned[8][300];
static int nwarned;
static unsigned char *guard;	/* two pages, the second inaccessible */
static long page;

static void warn(const char *line)
{
	if (nwarned < 8)
		snprintf(warned[nwarned], sizeof(warned[0]), "%s", line);
	nwarned++;
}

static void new_tep(void)
{
	tep = tep_alloc();
	ck_assert_ptr_nonnull(tep);
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_loglevel(TEP_LOG_NONE);
}

static void setup(void)
{
	page = sysconf(_SC_PAGESIZE);
	guard = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(guard, MAP_FAILED);
	ck_assert_int_eq(mprotect(guard + page, page, PROT_NONE), 0);
	new_tep();
	trace_seq_init(&seq);
	nwarned = 0;
	printer = NULL;
}

static void teardown(void)
{
	bm_printer_free(printer);
	trace_seq_destroy(&seq);
	tep_free(tep);
	munmap(guard, 2 * page);
}

/* An event of @fields printed with @fmt ("print fmt: " and what follows). */
static void load(const char *fields, const char *fmt)
{
	char text[4096];

	if (printer) {		/* another format for the same event: a parser of its own */
		bm_printer_free(printer);
		tep_free(tep);
		new_tep();
	}
	snprintf(text, sizeof(text), "%sprint fmt: %s\n", fields, fmt);
	ck_assert_int_eq(tep_parse_event(tep, text, strlen(text), "ftrace"), 0);
	printer = bm_printer_new(tep, warn);
	ck_assert_ptr_nonnull(printer);
}

/* @size bytes of @data as a record of event @id, against the guard page: its details. */
static const char *print(int id, const void *data, size_t size)
{
	unsigned char *at = guard + page - size;
	struct tep_record rec = { .data = at, .size = (int)size };

	memcpy(at, data, size);
	at[0] = id;
	at[1] = 0;
	trace_seq_reset(&seq);
	bm_printer_print(printer, &seq, &rec, id);
	trace_seq_terminate(&seq);
	return seq.buffer;
}

/* A print record: @ip, then @text (its NUL and padding to 4 bytes included). */
static const char *print_record(uint64_t ip, const char *text)
{
	unsigned char rec[256] = { 0 };
	size_t len = 16 + strlen(text) + 1;

	memcpy(rec + 8, &ip, 8);
	memcpy(rec + 16, text, strlen(text));
	return print(5, rec, (len + 3) / 4 * 4);
}

/* A dyn record: @len, then @n bytes of @msg at 16, the string's (offset, length) word at 12. */
static const char *dyn_record(uint32_t len, const char *msg, size_t n)
{
	unsigned char rec[256] = { 0 };
	uint32_t loc = (uint32_t)n << 16 | 16;

	memcpy(rec + 8, &len, 4);
	memcpy(rec + 12, &loc, 4);
	memcpy(rec + 16, msg, n);
	return print(7, rec, 16 + n);
}

static void warned_once_about(const char *event, const char *why)
{
	ck_assert_int_eq(nwarned, 1);
	ck_assert_msg(strstr(warned[0], event) && strstr(warned[0], why),
		      "the warning names neither %s nor '%s': %s", event, why, warned[0]);
}

START_TEST(a_sound_format_prints_as_libtraceevent_prints_it)
{
	unsigned char rec[24] = { 5, 0 };
	struct tep_record r = { .data = rec, .size = sizeof(rec) };
	struct trace_seq want;

	load(PRINT_FIELDS, "\"%lx: %s\", REC->ip, REC->buf");
	memcpy(rec + 8, &(uint64_t){ 0x1234 }, 8);
	memcpy(rec + 16, "hello", 6);
	trace_seq_init(&want);
	tep_print_event(tep, &want, &r, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&want);
	ck_assert_str_eq(print_record(0x1234, "hello"), want.buffer);
	ck_assert_str_eq(want.buffer, "1234: hello");
	ck_assert_int_eq(nwarned, 0);
	ck_assert_ptr_null(bm_printer_refusal(printer, 5));
	trace_seq_destroy(&want);
}
END_TEST

START_TEST(hex_of_a_million_bytes_prints_the_fields)
{
	load(PRINT_FIELDS, "\"%s\", __print_hex(REC->buf,1000000)");
	ck_assert_ptr_nonnull(bm_printer_refusal(printer, 5));
	ck_assert_str_eq(print_record(0x10, "hello"), "ip=0x10 buf=hello");
	ck_assert_str_eq(print_record(0x20, "again"), "ip=0x20 buf=again");
	warned_once_about("ftrace:print", "__print_hex()");
}
END_TEST

/* A constant length within 64 KiB is still checked against each record. */
START_TEST(hex_of_a_constant_length_stays_in_the_record)
{
	load(PRINT_FIELDS, "\"%s\", __print_hex(REC->buf, 4)");
	ck_assert_str_eq(print_record(1, "hello"), "68 65 6c 6c");
	ck_assert_int_eq(nwarned, 0);
	load(PRINT_FIELDS, "\"%s\", __print_hex(REC->buf, 100)");
	ck_assert_str_eq(print_record(1, "hello"), "ip=0x1 buf=hello");
	warned_once_about("ftrace:print", "reads 100 bytes at offset 16 of a 24-byte record");
}
END_TEST

START_TEST(a_width_of_999999999_prints_the_fields)
{
	load(PRINT_FIELDS, "\"%*s\", 999999999, REC->buf");
	ck_assert_str_eq(print_record(1, "hello"), "ip=0x1 buf=hello");
	warned_once_about("ftrace:print", "999999999");
}
END_TEST

START_TEST(a_width_written_out_is_bounded_too)
{
	load(PRINT_FIELDS, "\"%999999999s\", REC->buf");
	ck_assert_str_eq(print_record(1, "hello"), "ip=0x1 buf=hello");
	warned_once_about("ftrace:print", "width");
}
END_TEST

/* Lengths read from the record: checked on each record. */
START_TEST(a_width_from_the_record_is_checked_on_each)
{
	load(PRINT_FIELDS, "\"[%*s]\", REC->ip, REC->buf");
	ck_assert_ptr_null(bm_printer_refusal(printer, 5));
	ck_assert_str_eq(print_record(7, "hello"), "[  hello]");
	ck_assert_int_eq(nwarned, 0);
	ck_assert_str_eq(print_record(999999999, "hello"), "ip=0x3b9ac9ff buf=hello");
	ck_assert_str_eq(print_record(-1, "hello"), "ip=0xffffffffffffffff buf=hello");
	warned_once_about("ftrace:print", "width");
	ck_assert_str_eq(print_record(6, "hello"), "[ hello]");
}
END_TEST

START_TEST(hex_str_as_long_as_a_field_says_stays_in_the_record)
{
	load(PRINT_FIELDS, "\"%s\", __print_hex_str(REC->buf, REC->ip)");
	ck_assert_str_eq(print_record(5, "hello"), "68656c6c6f");
	ck_assert_str_eq(print_record(4096, "hello"), "ip=0x1000 buf=hello");
	warned_once_about("ftrace:print", "__print_hex_str()");
}
END_TEST

START_TEST(an_array_as_long_as_a_field_says_stays_in_the_record)
{
	load(PRINT_FIELDS, "\"%s\", __print_array(REC->buf, REC->ip, 2)");
	ck_assert_str_eq(print_record(2, "ab\x01\x00"), "25185 1");
	ck_assert_str_eq(print_record(100, "hello"), "ip=0x64 buf=hello");
	warned_once_about("ftrace:print", "__print_array()");
}
END_TEST

/*
 * A shift by 64 bits or more is undefined in C: libtraceevent shifts by
 * what the machine makes of it (x86: the count modulo 64, here 19 bits),
 * not to 0, and the array ran 512 KiB past the record (found by fuzz_format).
 */
START_TEST(a_shift_of_64_bits_or_more_prints_the_fields)
{
	load(PRINT_FIELDS, "\"%s\", __print_array(REC->buf, REC->ip << 659, 1)");
	ck_assert_str_eq(print_record(1, "hello"), "ip=0x1 buf=hello");
	warned_once_about("ftrace:print", "shifts by 659 bits");
}
END_TEST

START_TEST(a_shift_by_a_field_is_checked_on_each_record)
{
	load(PRINT_FIELDS, "\"%lu\", 256 >> REC->ip");
	ck_assert_ptr_null(bm_printer_refusal(printer, 5));
	ck_assert_str_eq(print_record(4, "x"), "16");
	ck_assert_int_eq(nwarned, 0);
	ck_assert_str_eq(print_record(64, "x"), "ip=0x40 buf=x");
	warned_once_about("ftrace:print", "shifts by 64 bits");
	ck_assert_str_eq(print_record(8, "x"), "1");
}
END_TEST

START_TEST(an_unterminated_string_prints_the_fields)
{
	load(DYN_FIELDS, "\"%u %s\", REC->len, __get_str(msg)");
	ck_assert_str_eq(dyn_record(3, "abc", 4), "3 abc");
	ck_assert_str_eq(dyn_record(8, "abcdefgh", 8), "len=8 msg=ARRAY[61, 62, 63, 64, 65, 66, 67, 68]");
	warned_once_about("ftrace:dyn", "__get_str(msg)");
}
END_TEST

START_TEST(a_division_by_zero_prints_the_fields)
{
	load(PRINT_FIELDS, "\"%lu\", 100 / REC->ip");
	ck_assert_str_eq(print_record(4, "x"), "25");
	ck_assert_str_eq(print_record(0, "x"), "ip=0x0 buf=x");
	warned_once_about("ftrace:print", "zero");
}
END_TEST

/* Whatever follows it: a %pIS of a field long enough once left a division unchecked. */
START_TEST(a_division_before_a_sockaddr_is_still_checked)
{
	load(PRINT_FIELDS, "\"%lu %pISpc\", 100 / REC->ip, REC->ip");
	ck_assert_str_eq(print_record(0, "x"), "ip=0x0 buf=x");
	warned_once_about("ftrace:print", "zero");
}
END_TEST

/* A name libtraceevent looks up as a symbol: 0 when it knows none. */
START_TEST(a_division_by_a_symbol_prints_the_fields)
{
	load(PRINT_FIELDS, "\"%lu\", REC->ip / NO_SUCH_SYMBOL");
	ck_assert_str_eq(print_record(4, "x"), "ip=0x4 buf=x");
	warned_once_about("ftrace:print", "divides");
}
END_TEST

START_TEST(an_index_far_past_the_record_prints_the_fields)
{
	load(PRINT_FIELDS, "\"%d\", REC->buf[REC->ip]");
	ck_assert_str_eq(print_record(1, "ab"), "98");
	ck_assert_str_eq(print_record(0x80000000ULL, "ab"), "ip=0x80000000 buf=ab");
	warned_once_about("ftrace:print", "index");
}
END_TEST

START_TEST(an_empty_cpumask_prints_the_fields)
{
	load(DYN_FIELDS, "\"%s\", __get_cpumask(msg)");
	ck_assert_str_eq(dyn_record(0, "", 0), "len=0 msg=ARRAY[]");
	warned_once_about("ftrace:dyn", "__get_cpumask(msg)");
}
END_TEST

START_TEST(a_record_shorter_than_its_fields_is_not_printed)
{
	unsigned char rec[12] = { 0 };

	load(PRINT_FIELDS, "\"%lx: %s\", REC->ip, REC->buf");
	ck_assert_str_eq(print(5, rec, sizeof(rec)), "(record shorter than its format says)");
	ck_assert_str_eq(dyn_record(1, "x", 2), "(record shorter than its format says)");
}
END_TEST

/*
 * libtraceevent's function plugin prints a kernel stack by words of 8
 * bytes while one starts inside the record: a record of 4 bytes more
 * made it read 4 bytes past the end.
 */
START_TEST(a_kernel_stack_is_read_by_whole_words)
{
	static const char stack[] =
		"name: kernel_stack\nID: 4\n" COMMON
		"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
		"print fmt: \"\\t=> %ps\\n\", (void *)REC->caller[0]\n";
	struct tep_plugin_list *plugins;
	unsigned char rec[28] = { 4 };
	const char *out;

	ck_assert_int_eq(tep_parse_event(tep, stack, strlen(stack), "ftrace"), 0);
	plugins = tep_load_plugins(tep);
	if (!tep_find_event_by_name(tep, "ftrace", "kernel_stack")->handler) {
		tep_unload_plugins(plugins, tep);
		ck_abort_msg("libtraceevent's function plugin is not installed: no kernel_stack "
			     "handler to test (libtraceevent1-plugin)");
	}
	printer = bm_printer_new(tep, warn);
	memcpy(rec + 16, &(uint64_t){ 0xffffffff81000000ULL }, 8);
	memcpy(rec + 24, &(uint32_t){ 0xabcdef }, 4);
	out = print(4, rec, sizeof(rec));
	ck_assert_msg(strstr(out, "=> ffffffff81000000") && !strstr(out, "abcdef\n"),
		      "not one frame: %s", out);
	ck_assert_int_eq(nwarned, 0);
	bm_printer_free(printer);
	printer = NULL;
	tep_unload_plugins(plugins, tep);
}
END_TEST

/*
 * A listing formats block events in worker threads that read commands from
 * @tep while the caller prints the other events: in threads only where no
 * plugin's handler learns commands as it prints. blkmap's recordings hold
 * ftrace's raw_data, which libtraceevent's function plugin prints; a
 * sched_switch (plugin_sched_switch) registers its commands.
 */
START_TEST(only_a_handler_that_learns_commands_keeps_a_listing_in_one_thread)
{
	static const char raw_data[] =
		"name: raw_data\nID: 6\n" COMMON
		"\tfield:unsigned int id;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:char buf[];\toffset:12;\tsize:0;\tsigned:1;\n\n"
		"print fmt: \"id:%04x %08x\", REC->id, (int)REC->buf[0]\n";
	static const char sched_switch[] =
		"name: sched_switch\nID: 300\n" COMMON
		"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
		"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
		"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
		"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
		"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:1;\n"
		"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
		"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"prev_comm=%s next_comm=%s\", REC->prev_comm, REC->next_comm\n";
	struct tep_plugin_list *plugins;

	ck_assert_int_eq(tep_parse_event(tep, raw_data, strlen(raw_data), "ftrace"), 0);
	ck_assert(!bm_printing_learns(tep));
	plugins = tep_load_plugins(tep);
	if (!tep_find_event_by_name(tep, "ftrace", "raw_data")->handler) {
		tep_unload_plugins(plugins, tep);
		ck_abort_msg("libtraceevent's function plugin is not installed: no raw_data "
			     "handler to test (libtraceevent1-plugin)");
	}
	ck_assert_msg(!bm_printing_learns(tep), "raw_data's handler only prints");
	/* A handler registered before its event is parsed is given to it then. */
	ck_assert_int_eq(tep_parse_event(tep, sched_switch, strlen(sched_switch), "sched"), 0);
	ck_assert_ptr_nonnull(tep_find_event_by_name(tep, "sched", "sched_switch")->handler);
	ck_assert_msg(bm_printing_learns(tep), "sched_switch's handler learns commands");
	tep_unload_plugins(plugins, tep);
}
END_TEST

Suite *suite_printfmt(void)
{
	Suite *s = suite_create("print formats");
	TCase *tc = tcase_create("hostile formats");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_sound_format_prints_as_libtraceevent_prints_it);
	tcase_add_test(tc, hex_of_a_million_bytes_prints_the_fields);
	tcase_add_test(tc, hex_of_a_constant_length_stays_in_the_record);
	tcase_add_test(tc, a_width_of_999999999_prints_the_fields);
	tcase_add_test(tc, a_width_written_out_is_bounded_too);
	tcase_add_test(tc, a_width_from_the_record_is_checked_on_each);
	tcase_add_test(tc, hex_str_as_long_as_a_field_says_stays_in_the_record);
	tcase_add_test(tc, an_array_as_long_as_a_field_says_stays_in_the_record);
	tcase_add_test(tc, a_shift_of_64_bits_or_more_prints_the_fields);
	tcase_add_test(tc, a_shift_by_a_field_is_checked_on_each_record);
	tcase_add_test(tc, an_unterminated_string_prints_the_fields);
	tcase_add_test(tc, a_division_by_zero_prints_the_fields);
	tcase_add_test(tc, a_division_by_a_symbol_prints_the_fields);
	tcase_add_test(tc, a_division_before_a_sockaddr_is_still_checked);
	tcase_add_test(tc, an_index_far_past_the_record_prints_the_fields);
	tcase_add_test(tc, an_empty_cpumask_prints_the_fields);
	tcase_add_test(tc, a_record_shorter_than_its_fields_is_not_printed);
	tcase_add_test(tc, a_kernel_stack_is_read_by_whole_words);
	tcase_add_test(tc, only_a_handler_that_learns_commands_keeps_a_listing_in_one_thread);
	suite_add_tcase(s, tc);
	return s;
}
