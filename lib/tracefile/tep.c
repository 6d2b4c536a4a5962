// SPDX-License-Identifier: GPL-2.0-only
/*
 * The file's event parser (reading.h): its formats checked for shape, then
 * parsed in a child first, as libtraceevent crashes on some malformed ones;
 * the fields it made checked; kallsyms, printk formats and cmdlines loaded.
 * The last parser state built is kept for the next file of the same kind,
 * and the plugins are loaded only for printing.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>

#include "blkmap/tracefile/reader.h"
#include "blkmap/util/error.h"

#include "reading.h"

/*
 * The shape of a format, as the kernel prints it: "name:", "ID:", "format:",
 * field lines, "print fmt:". Returns NULL if it has it, else what is wrong.
 */
/* A field's offset and size, and the record that holds them, stay below this. */
#define FIELD_LIMIT	65536

/*
 * The decimal number at @text, ended by ';', plus one (so that 0 means
 * none): digits only, below FIELD_LIMIT.
 */
static uint64_t field_number(const char *text)
{
	uint64_t v = 0;
	int digits = 0;

	for (; *text >= '0' && *text <= '9'; text++, digits++) {
		v = v * 10 + (uint64_t)(*text - '0');
		if (v >= FIELD_LIMIT || digits > 5)
			return 0;
	}
	return digits && *text == ';' ? v + 1 : 0;
}

static const char *format_shape_error(const char *text)
{
	static const char *const keys[] = { ";\toffset:", ";\tsize:", ";\tsigned:" };
	uint64_t value[2];
	const char *line = text, *end;
	int fields = 0, state = 0;	/* 0 name, 1 ID, 2 format:, 3 fields, 4 done */
	size_t k;

	for (; *line && state < 4; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		switch (state) {
		case 0:
			if (strncmp(line, "name: ", 6) || end == line + 6)
				return "no event name";
			state = 1;
			break;
		case 1:
			if (strncmp(line, "ID: ", 4) || !strchr("0123456789", line[4]))
				return "no event ID";
			state = 2;
			break;
		case 2:
			if (strncmp(line, "format:", 7))
				return "no \"format:\" line";
			state = 3;
			break;
		case 3:
			if (line == end)
				continue;
			if (!strncmp(line, "print fmt: ", 11)) {
				state = 4;
				break;
			}
			if (strncmp(line, "\tfield:", 7) || !memchr(line, ' ', end - line))
				return "a field line is malformed";
			for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
				const char *at = strstr(line, keys[k]);

				if (!at || at > end || !strchr("0123456789", at[strlen(keys[k])]))
					return "a field line is malformed";
				if (k < 2 && !(value[k] = field_number(at + strlen(keys[k]))))
					return "a field's offset or size is not a decimal number below 65536";
			}
			/*
			 * libtraceevent keeps them as int: an offset of 4293967304 would
			 * be -1000000, and a record read there.
			 */
			if (value[0] - 1 + value[1] - 1 > FIELD_LIMIT)
				return "a field lies past the largest event a ring buffer holds";
			fields++;
			break;
		}
	}
	if (state < 4)
		return "no \"print fmt:\" line";
	return fields ? NULL : "no fields";
}

#define SAFE_FORMATS 512

/* Hashes of the format sets known to parse: a process reads few kinds of files. */
static uint64_t safe_formats[SAFE_FORMATS];
static pthread_mutex_t safe_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t formats_hash(const struct bm_trace_meta *m)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */
	size_t i, j;

	for (i = 0; i < m->nformats; i++)
		for (j = 0; j < m->formats[i].len; j++)
			h = (h ^ (unsigned char)m->formats[i].text[j]) * 1099511628211ULL;
	for (j = 0; j < m->header_page_len; j++)
		h = (h ^ (unsigned char)m->header_page[j]) * 1099511628211ULL;
	return h | 1;
}

/* Open addressing from the hash's own slot; when full, the newest wins that slot. */
static bool formats_known_safe(uint64_t h, bool add)
{
	size_t i, n;

	pthread_mutex_lock(&safe_lock);
	for (i = h % SAFE_FORMATS, n = 0; n < SAFE_FORMATS && safe_formats[i];
	     i = (i + 1) % SAFE_FORMATS, n++)
		if (safe_formats[i] == h)
			break;
	if (n == SAFE_FORMATS)
		i = h % SAFE_FORMATS;
	if (safe_formats[i] == h) {
		pthread_mutex_unlock(&safe_lock);
		return true;
	}
	if (add)
		safe_formats[i] = h;
	pthread_mutex_unlock(&safe_lock);
	return false;
}

/*
 * libtraceevent's format parser crashes on some malformed formats. A file
 * someone hands us must not crash the report: parse the formats in a child
 * first, which says how far it got. Returns the index of the first format
 * the parser did not survive, or -1.
 */
static ssize_t format_crashing_the_parser(struct bm_trace *t)
{
	struct bm_trace_meta *m = &t->meta;
	ssize_t last = -1;
	uint64_t hash = formats_hash(m);
	int fds[2], status;
	int32_t i;
	pid_t pid;

	if (formats_known_safe(hash, false))
		return -1;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		static const int fatal[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
		struct tep_handle *tep;
		size_t k;

		/* Die of it quietly: no inherited crash handler (a sanitizer's) runs. */
		for (k = 0; k < sizeof(fatal) / sizeof(fatal[0]); k++)
			signal(fatal[k], SIG_DFL);
		tep = tep_alloc();
		close(fds[0]);
		if (tep)
			tep_parse_header_page(tep, m->header_page, m->header_page_len, t->meta.long_size);
		for (i = 0; tep && i < (int32_t)m->nformats; i++) {
			if (write(fds[1], &i, sizeof(i)) != sizeof(i))
				_exit(1);
			tep_parse_event(tep, m->formats[i].text, m->formats[i].len,
					m->formats[i].system);
		}
		i = -1;
		_exit(write(fds[1], &i, sizeof(i)) == sizeof(i) ? 0 : 1);
	}
	close(fds[1]);
	while (read(fds[0], &i, sizeof(i)) == sizeof(i))
		if (i >= 0)
			last = i;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFSIGNALED(status)) {
		formats_known_safe(hash, true);
		return -1;
	}
	return last >= 0 ? last : 0;
}

/*
 * The last parser state built, kept when its file is closed for the next
 * file that holds the same formats, kallsyms, cmdlines, byte order and
 * sizes: parsing them is most of the cost of opening a small file, and a
 * process that opens many (the fuzzer, a script over a series) mostly opens
 * one kind. Never shared: a file takes it, and gives it back when closed.
 */
static struct {
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	char *key;
	size_t key_len;
} spare;
/* Whether files are opened with libtraceevent's plugins, as trace-cmd does (-N: not). */
static bool with_plugins = true;

void bm_trace_plugins(bool on)
{
	with_plugins = on;
}

void rd_free_tep(struct tep_handle *tep, struct tep_plugin_list *plugins)
{
	if (plugins)
		tep_unload_plugins(plugins, tep);
	tep_free(tep);
}
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;

static void key_add(char **p, const void *data, size_t len)
{
	memcpy(*p, &len, sizeof(len));
	if (len)
		memcpy(*p + sizeof(len), data, len);
	*p += sizeof(len) + len;
}

/* Everything a parser state is built from, in one buffer; NULL without memory. */
static char *tep_key_of(const struct bm_trace *t, size_t *len)
{
	const struct bm_trace_meta *m = &t->meta;
	const size_t n = sizeof(size_t);
	int sizes[3] = { t->swap, m->long_size, (int)m->page_size };
	size_t total = 5 * n + sizeof(sizes) + m->header_page_len + m->kallsyms_len +
		       m->printk_len + m->cmdlines_len, i;
	char *key, *p;

	for (i = 0; i < m->nformats; i++)
		total += 2 * n + strlen(m->formats[i].system) + m->formats[i].len;
	key = p = malloc(total);
	if (!key)
		return NULL;
	key_add(&p, sizes, sizeof(sizes));
	key_add(&p, m->header_page, m->header_page_len);
	key_add(&p, m->kallsyms, m->kallsyms_len);
	key_add(&p, m->printk, m->printk_len);
	key_add(&p, m->cmdlines, m->cmdlines_len);
	for (i = 0; i < m->nformats; i++) {
		key_add(&p, m->formats[i].system, strlen(m->formats[i].system));
		key_add(&p, m->formats[i].text, m->formats[i].len);
	}
	*len = p - key;
	return key;
}

/* The spare parser state, if it was built from @t's key. */
static bool take_spare(struct bm_trace *t)
{
	pthread_mutex_lock(&spare_lock);
	if (spare.tep && t->tep_key && spare.key_len == t->tep_key_len &&
	    !memcmp(spare.key, t->tep_key, t->tep_key_len)) {
		t->tep = spare.tep;
		t->plugins = spare.plugins;
		spare.tep = NULL;
		spare.plugins = NULL;
		free(spare.key);
		spare.key = NULL;
	}
	pthread_mutex_unlock(&spare_lock);
	return t->tep != NULL;
}

/* @t is closed: its parser state becomes the spare one. */
void rd_give_back(struct bm_trace *t)
{
	pthread_mutex_lock(&spare_lock);
	if (spare.tep)
		rd_free_tep(spare.tep, spare.plugins);
	free(spare.key);
	spare.tep = t->tep;
	spare.plugins = t->plugins;
	spare.key = t->tep_key;
	spare.key_len = t->tep_key_len;
	pthread_mutex_unlock(&spare_lock);
	t->tep = NULL;
	t->plugins = NULL;
	t->tep_key = NULL;
}

/* Where in the file @e's format is, for messages; 0 if not found. */
static uint64_t format_offset(const struct bm_trace *t, const struct tep_event *e)
{
	size_t i, n = strlen(e->name);

	for (i = 0; i < t->meta.nformats; i++) {
		const struct bm_format *f = &t->meta.formats[i];

		if (!strcmp(f->system, e->system) && !strncmp(f->text, "name: ", 6) &&
		    !strncmp(f->text + 6, e->name, n) && f->text[6 + n] == '\n')
			return f->offset;
	}
	return 0;
}

/*
 * What the parser made of the formats: every field within a record of 64
 * KiB at most, a dynamic one a 4-byte (offset, length) word. The text was
 * checked already, but libtraceevent takes more than one shape of a field
 * line (tokens inside a name's brackets), and keeps offsets and sizes as
 * int: this is what decoding relies on.
 */
static int parsed_fields_error(struct bm_trace *t)
{
	struct tep_event **events = tep_list_events(t->tep, TEP_EVENT_SORT_ID);
	int i, n = events ? tep_get_events_count(t->tep) : 0;

	for (i = 0; i < n; i++) {
		struct tep_format_field *lists[2] = { events[i]->format.common_fields,
						      events[i]->format.fields }, *f;
		int k;

		for (k = 0; k < 2; k++)
			for (f = lists[k]; f; f = f->next) {
				char msg[200];

				if (f->offset >= 0 && f->size >= 0 &&
				    (uint64_t)f->offset + (uint64_t)f->size <= 65536 &&
				    (!(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size == 4))
					continue;
				snprintf(msg, sizeof(msg), "the %s:%s event's field %s is at offset %d, "
					 "%d bytes: not within a record", events[i]->system,
					 events[i]->name, f->name, f->offset, f->size);
				return rd_fail(t, format_offset(t, events[i]), msg);
			}
	}
	return 0;
}

int rd_load_tep(struct bm_trace *t)
{
	struct bm_trace_meta *m = &t->meta;
	ssize_t bad;
	size_t i;

	t->tep_key = tep_key_of(t, &t->tep_key_len);
	if (take_spare(t)) {
		t->tep_ready = true;
		return 0;
	}

	for (i = 0; i < m->nformats; i++) {
		const char *shape = format_shape_error(m->formats[i].text);
		char msg[160];

		if (!shape)
			continue;
		snprintf(msg, sizeof(msg), "a %s event format is malformed: %s",
			 m->formats[i].system, shape);
		return rd_fail(t, m->formats[i].offset, msg);
	}
	bad = format_crashing_the_parser(t);
	if (bad >= 0) {
		const char *name = strstr(m->formats[bad].text, "name: ");
		char msg[160];

		snprintf(msg, sizeof(msg), "a malformed %s event format (%.*s) breaks the "
			 "event parser", m->formats[bad].system,
			 name ? (int)strcspn(name + 6, "\n") : 1, name ? name + 6 : "?");
		return rd_fail(t, m->formats[bad].offset, msg);
	}
	t->tep = tep_alloc();
	if (!t->tep) {
		bm_error_errno("cannot read '%s'", t->path);
		return -1;
	}
	tep_set_file_bigendian(t->tep, (__BYTE_ORDER == __BIG_ENDIAN) != t->swap ?
			       TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(t->tep, __BYTE_ORDER == __BIG_ENDIAN ?
				TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, t->meta.long_size);
	tep_set_page_size(t->tep, m->page_size);
	if (tep_parse_header_page(t->tep, m->header_page, m->header_page_len,
				  t->meta.long_size) < 0)
		return rd_fail(t, 0, "the header_page section does not parse");
	for (i = 0; i < m->nformats; i++) {
		if (tep_parse_event(t->tep, m->formats[i].text, m->formats[i].len,
				    m->formats[i].system) != 0) {
			/* An event we cannot parse is shown raw, as trace-cmd does. */
			continue;
		}
	}
	if (parsed_fields_error(t) < 0)
		return -1;
	if (m->kallsyms_len)
		tep_parse_kallsyms(t->tep, m->kallsyms);
	if (m->printk_len)	/* trace_printk()'s formats, which its events point to */
		tep_parse_printk_formats(t->tep, m->printk);
	if (m->cmdlines_len)
		tep_parse_saved_cmdlines(t->tep, m->cmdlines);
	t->tep_ready = true;
	return 0;
}

struct tep_handle *bm_trace_tep_printing(struct bm_trace *t)
{
	/*
	 * Events print as trace-cmd prints them, through the plugins it loads
	 * (sched_switch...): loaded only for printing, so that a recorder (or
	 * a view that only counts) never loads code from plugin directories.
	 */
	if (with_plugins && !t->plugins && !t->tep_printed)
		t->plugins = tep_load_plugins(t->tep);
	t->tep_printed = true;
	return t->tep;
}
