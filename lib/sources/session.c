// SPDX-License-Identifier: GPL-2.0-only
/* The recording's tracefs instance. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "blkmap/sources/session.h"
#include "blkmap/tracefile/meta.h"
#include "blkmap/util/error.h"
#include "blkmap/util/kallsyms.h"

struct enabled {
	char *system, *event;
};

struct bm_session {
	struct tracefs_instance *inst;
	char name[64];
	int marker_fd;
	int ncpus;
	uint32_t page_size;	/* of a sub-buffer, as this instance has them */
	int long_size;		/* the kernel's: the size of a page's commit field */
	struct enabled *enabled;
	size_t nenabled;
};

int bm_session_check_access(void)
{
	const char *path = NULL;

	if (geteuid() != 0) {
		bm_error("recording needs root (CAP_SYS_ADMIN to create a tracefs instance); "
			 "run it with sudo");
		errno = EPERM;
		return -1;
	}
	/* 1: it was mounted; 0: it was not, and now is (a fresh machine); -1: it cannot be. */
	if (tracefs_tracing_dir_is_mounted(true, &path) < 0 || !tracefs_tracing_dir()) {
		bm_error("tracefs is not mounted and could not be mounted; "
			 "mount it with 'mount -t tracefs nodev /sys/kernel/tracing'");
		errno = ENOENT;
		return -1;
	}
	if (!tracefs_dir_exists(NULL, "instances")) {
		bm_error("this kernel's tracefs has no instances (needs Linux 3.10 or later)");
		errno = ENOTSUP;
		return -1;
	}
	return 0;
}

/*
 * BLKMAP_FAULT_TRACEFS: the instance files, comma-separated without
 * spaces ("buffer_subbuf_size_kb,buffer_percent"), whose writes fail with
 * EPERM, as some kernels refuse them (a 6.18 refused every write to
 * buffer_subbuf_size_kb): for the tests (tests/live/t1008), on kernels
 * that would take the value.
 */
static bool refused_by_test(const char *file)
{
	const char *list = getenv("BLKMAP_FAULT_TRACEFS"), *p;
	size_t n = strlen(file);

	for (p = list; p && *p; p += strcspn(p, ","), p += *p == ',')
		if (!strncmp(p, file, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* 0, or -1 with errno as the kernel (or the test) refused. */
static int write_file(struct bm_session *s, const char *file, const char *value)
{
	if (refused_by_test(file)) {
		errno = EPERM;
		return -1;
	}
	return tracefs_instance_file_write(s->inst, file, value) < 0 ? -1 : 0;
}

/*
 * The kernel's value of a one-number file; 0 if it cannot be told (an
 * unreadable file, or buffer_size_kb's "X" when the CPUs differ).
 */
static unsigned long read_number(struct bm_session *s, const char *file)
{
	char *text = tracefs_instance_file_read(s->inst, file, NULL);
	unsigned long v = text ? strtoul(text, NULL, 10) : 0;

	free(text);
	return v;
}

/* "its 4 KiB", or "its own" when the value cannot be told. */
static const char *its(unsigned long v, const char *unit, char *buf, size_t size)
{
	if (!v)
		return "its own value";
	snprintf(buf, size, "its %lu%s", v, unit);
	return buf;
}

/*
 * Set @file to @value (a number). What the user asked for (@given: the
 * option that asked for it) must be had: a refusal fails, saying what the
 * kernel keeps. blkmap's own choice is a wish: on a refusal the kernel's
 * value stays, and @warn is told in one line what was refused, what is
 * used instead and what that costs (@cost, given the kernel's value). A
 * refused value the kernel already has is no refusal; a value the kernel
 * made smaller is said. 0 when
 * recording can go on, -1 with a message when not.
 */
static int set_number(struct bm_session *s, const char *file, unsigned long value,
		      const char *unit, const char *given, bm_tell_fn warn,
		      const char *(*cost)(unsigned long kept, unsigned long wished))
{
	char text[32], buf[48];
	unsigned long kept;
	int err = 0;

	snprintf(text, sizeof(text), "%lu", value);
	if (write_file(s, file, text) < 0)
		err = errno;
	kept = read_number(s, file);
	if (kept == value)
		return 0;
	if (!err) {
		if (kept && kept < value)
			bm_tell(warn, "the kernel made %s %lu%s into %lu%s", file, value, unit, kept,
				unit);
		return 0;
	}
	if (given) {
		bm_error("the kernel refused %s %lu (%s/%s: %s); it keeps %s: leave out %s, and "
			 "blkmap records with what the kernel takes", given, value, s->name, file,
			 strerror(err), its(kept, unit, buf, sizeof(buf)), given);
		errno = err;
		return -1;
	}
	bm_tell(warn, "the kernel refused %s %lu%s (%s); recording with %s: %s", file, value,
		unit, strerror(err), its(kept, unit, buf, sizeof(buf)), cost(kept, value));
	return 0;
}

static const char *buffer_cost(unsigned long kept, unsigned long wished)
{
	return kept < wished ? "a burst larger than that between two reads of a CPU's buffer "
			       "loses events (counted in the file's stats)"
			     : "more memory held by the kernel, nothing lost";
}

static const char *percent_cost(unsigned long kept, unsigned long wished)
{
	return kept < wished ? "the recorder wakes more often, each time for fewer pages, some "
			       "partly filled"
			     : "the recorder wakes later: a burst that fills the rest of the "
			       "buffer before it wakes loses events (counted in the file's stats)";
}

/* Is the instance's trace clock (the bracketed one) mono? */
static bool clock_is_mono(struct bm_session *s)
{
	char *clocks = tracefs_instance_file_read(s->inst, "trace_clock", NULL);
	bool mono = clocks && strstr(clocks, "[mono]");

	free(clocks);
	return mono;
}

static int count_cpus(struct bm_session *s)
{
	char *dir = tracefs_instance_get_file(s->inst, "per_cpu");
	struct dirent *d;
	DIR *dp;
	int max = -1, cpu;

	dp = dir ? opendir(dir) : NULL;
	tracefs_put_tracing_file(dir);
	if (!dp) {
		bm_error_errno("cannot list %s/per_cpu", s->name);
		return -1;
	}
	while ((d = readdir(dp)))
		if (sscanf(d->d_name, "cpu%d", &cpu) == 1 && cpu > max)
			max = cpu;
	closedir(dp);
	return max + 1;
}

/*
 * The page layout from the instance's own header page: its sub-buffers may
 * be larger than the top level's (buffer_subbuf_size_kb, 6.8+), and the
 * kernel's long (the commit field) need not be this program's.
 */
static int read_page_layout(struct bm_session *s)
{
	struct tep_handle *tep = tep_alloc();
	char *buf;
	int len, ret = -1;

	buf = tracefs_instance_file_read(s->inst, "events/header_page", &len);
	if (tep && buf && tep_parse_header_page(tep, buf, len, sizeof(long)) == 0) {
		s->page_size = tep_get_sub_buffer_size(tep);
		s->long_size = tep_get_header_page_size(tep);
		ret = s->page_size > 0 && (s->long_size == 4 || s->long_size == 8) ? 0 : -1;
	}
	if (ret < 0)
		bm_error("cannot read the page layout from %s/events/header_page", s->name);
	free(buf);
	tep_free(tep);
	return ret;
}

/* Write @value to @file, a setting blkmap cannot record without. */
static int require(struct bm_session *s, const char *file, const char *value)
{
	if (write_file(s, file, value) == 0)
		return 0;
	bm_error_errno("cannot write '%s' to %s/%s", value, s->name, file);
	return -1;
}

/*
 * The clock must be mono, the clock user space reads as CLOCK_MONOTONIC:
 * the uevent markers' bounds, the mount table's looks and the wall clock
 * beside the trace are placed by it. A kernel that refuses the write but
 * already runs the instance on mono serves as well.
 */
static int set_clock(struct bm_session *s)
{
	int err;

	if (write_file(s, "trace_clock", "mono") == 0)
		return 0;
	err = errno;
	if (clock_is_mono(s))
		return 0;
	bm_error("the kernel refused the trace clock mono for %s (%s), and blkmap places user "
		 "space's observations by it (CLOCK_MONOTONIC): allow writes to trace_clock in "
		 "tracefs instances", s->name, strerror(err));
	errno = err;
	return -1;
}

static const char *subbuf_cost(unsigned long kept, unsigned long wished)
{
	(void)wished;
	return kept * 1024 > (unsigned long)sysconf(_SC_PAGESIZE) ?
		"sub-buffers of that size are spliced into the spool as before" :
		"the kernel hands each page over by itself, about 1.3 times the recorder's "
		"CPU per event with 16 KiB sub-buffers";
}

static int set_subbuf(struct bm_session *s, const struct bm_session_opts *o)
{
	if (o->subbuf_kib && !tracefs_file_exists(s->inst, "buffer_subbuf_size_kb")) {
		bm_error("this kernel cannot change the sub-buffer size (needs Linux 6.8): leave "
			 "out -S to record with its pages");
		errno = ENOTSUP;
		return -1;
	}
	if (o->subbuf_kib)
		return set_number(s, "buffer_subbuf_size_kb", o->subbuf_kib, " KiB", "-S", o->warn,
				  subbuf_cost);
	if (!o->wish_subbuf_kib || !tracefs_file_exists(s->inst, "buffer_subbuf_size_kb"))
		return 0;
	return set_number(s, "buffer_subbuf_size_kb", o->wish_subbuf_kib, " KiB", NULL, o->warn,
			  subbuf_cost);
}

static int set_buffer(struct bm_session *s, const struct bm_session_opts *o)
{
	if (o->buffer_kib)
		return set_number(s, "buffer_size_kb", o->buffer_kib, " KiB", "-b", o->warn,
				  buffer_cost);
	if (!o->wish_buffer_kib)
		return 0;
	return set_number(s, "buffer_size_kb", o->wish_buffer_kib, " KiB", NULL, o->warn,
			  buffer_cost);
}

/*
 * When the reader wakes, in percent of the buffer full. Each wake-up costs
 * the same whatever it takes, and with the kernel's 4 KiB pages the fewer
 * the better (bench/floor, 2 CPUs, 6.18: 0.026 CPU s per million events
 * at 65 % and at 80 %, 0.036 at 20 %). What is left unread when it wakes
 * holds the events written while it gets a CPU and drains, and while the
 * spool's disk is slow: at least WAKE_ROOM_KIB (some 20 ms of a million
 * block events a second): 63 % of the default 4 MiB, up to 80 % of a
 * larger buffer; one of 1920 KiB or less (-b, or the kernel's own where it
 * refused ours) wakes the reader at a fifth.
 */
#define WAKE_ROOM_KIB	1536

static unsigned long wake_percent(struct bm_session *s)
{
	unsigned long kib = read_number(s, "buffer_size_kb");
	unsigned long percent = kib > WAKE_ROOM_KIB ? 100 - 100 * WAKE_ROOM_KIB / kib : 0;

	return percent < 20 ? 20 : percent > 80 ? 80 : percent;
}

struct bm_session *bm_session_create(const struct bm_session_opts *o)
{
	struct bm_session *s;

	s = calloc(1, sizeof(*s));
	if (!s) {
		bm_error_errno("cannot create the tracefs instance");
		return NULL;
	}
	s->marker_fd = -1;
	snprintf(s->name, sizeof(s->name), BM_INSTANCE_PREFIX "%d", (int)getpid());
	if (getenv("BLKMAP_FAULT_TRACEFS"))
		bm_tell(o->warn, "BLKMAP_FAULT_TRACEFS=%s: writes to these files fail as if the "
			"kernel refused them", getenv("BLKMAP_FAULT_TRACEFS"));

	s->inst = tracefs_instance_create(s->name);
	if (s->inst && !tracefs_instance_is_new(s->inst)) {
		/* Named after our pid, so left by a dead recorder: reclaim it. */
		tracefs_instance_destroy(s->inst);
		tracefs_instance_free(s->inst);
		s->inst = tracefs_instance_create(s->name);
	}
	if (!s->inst) {
		bm_error_errno("cannot create tracefs instance '%s'", s->name);
		free(s);
		return NULL;
	}
	/* The clock before anything is recorded: changing it clears the buffer. */
	if (require(s, "tracing_on", "0") < 0 || set_clock(s) < 0 ||
	    set_subbuf(s, o) < 0 || set_buffer(s, o) < 0)
		goto fail;
	if (tracefs_file_exists(s->inst, "buffer_percent") &&
	    set_number(s, "buffer_percent", wake_percent(s), " %", NULL, o->warn,
		       percent_cost) < 0)
		goto fail;
	s->marker_fd = tracefs_instance_file_open(s->inst, "trace_marker", O_WRONLY | O_CLOEXEC);
	if (s->marker_fd < 0) {
		bm_error_errno("cannot open %s/trace_marker", s->name);
		goto fail;
	}
	s->ncpus = count_cpus(s);
	if (s->ncpus <= 0)
		goto fail;
	if (read_page_layout(s) < 0)
		goto fail;
	return s;
fail:
	bm_session_destroy(s);
	return NULL;
}

void bm_session_destroy(struct bm_session *s)
{
	size_t i;

	if (!s)
		return;
	if (s->inst) {
		tracefs_instance_file_write(s->inst, "tracing_on", "0");
		tracefs_event_disable(s->inst, NULL, NULL);
	}
	if (s->marker_fd >= 0)
		close(s->marker_fd);
	if (s->inst) {
		tracefs_instance_destroy(s->inst);
		tracefs_instance_free(s->inst);
	}
	for (i = 0; i < s->nenabled; i++) {
		free(s->enabled[i].system);
		free(s->enabled[i].event);
	}
	free(s->enabled);
	free(s);
}

bool bm_session_has_event(struct bm_session *s, const char *system, const char *event)
{
	return tracefs_event_file_exists(s->inst, system, event, "format");
}

static int remember(struct bm_session *s, const char *system, const char *event)
{
	struct enabled *e;
	size_t i;

	for (i = 0; i < s->nenabled; i++)
		if (!strcmp(s->enabled[i].system, system) && !strcmp(s->enabled[i].event, event))
			return 0;
	e = realloc(s->enabled, (s->nenabled + 1) * sizeof(*e));
	if (!e)
		return -1;
	s->enabled = e;
	e[s->nenabled].system = strdup(system);
	e[s->nenabled].event = strdup(event);
	if (!e[s->nenabled].system || !e[s->nenabled].event) {
		free(e[s->nenabled].system);
		free(e[s->nenabled].event);
		return -1;
	}
	s->nenabled++;
	return 0;
}

/* Anchored regex of a literal name: tracefs_event_enable() takes regexes. */
static void anchor(char *out, size_t size, const char *name)
{
	size_t n = 0;

	out[n++] = '^';
	for (; *name && n + 3 < size; name++) {
		if (strchr(".[]()*+?^$\\|{}", *name))
			out[n++] = '\\';
		out[n++] = *name;
	}
	out[n++] = '$';
	out[n] = '\0';
}

int bm_session_enable(struct bm_session *s, const char *spec)
{
	char system[128], event[128], rsys[300], revt[300];
	const char *colon = strchr(spec, ':');
	char **events = NULL;
	int i, ret = -1;

	if (colon) {
		snprintf(system, sizeof(system), "%.*s", (int)(colon - spec), spec);
		snprintf(event, sizeof(event), "%s", colon + 1);
	} else {
		snprintf(system, sizeof(system), "%s", spec);
		event[0] = '\0';
	}
	if (!system[0] || strchr(system, '/') || strchr(event, '/')) {
		bm_error("'%s' is not an event; use SYSTEM:EVENT or SYSTEM", spec);
		errno = EINVAL;
		return -1;
	}
	if (event[0] && !bm_session_has_event(s, system, event)) {
		bm_error("event %s:%s does not exist on this kernel (see %s/available_events)",
			 system, event, tracefs_tracing_dir());
		errno = ENOENT;
		return -1;
	}
	if (!event[0]) {
		events = tracefs_system_events(NULL, system);
		if (!events || !events[0]) {
			bm_error("event system '%s' does not exist on this kernel", system);
			errno = ENOENT;
			goto out;
		}
	}
	anchor(rsys, sizeof(rsys), system);
	anchor(revt, sizeof(revt), event);
	if (tracefs_event_enable(s->inst, rsys, event[0] ? revt : NULL) < 0) {
		bm_error_errno("cannot enable event %s in '%s'", spec, s->name);
		goto out;
	}
	if (event[0]) {
		ret = remember(s, system, event);
	} else {
		for (i = 0, ret = 0; events[i] && ret == 0; i++)
			ret = remember(s, system, events[i]);
	}
	if (ret < 0)
		bm_error_errno("cannot enable event %s", spec);
out:
	tracefs_list_free(events);
	return ret;
}

int bm_session_disable(struct bm_session *s, const char *system, const char *event)
{
	char rsys[300], revt[300];
	size_t i;

	for (i = 0; i < s->nenabled; i++)
		if (!strcmp(s->enabled[i].system, system) && !strcmp(s->enabled[i].event, event)) {
			free(s->enabled[i].system);
			free(s->enabled[i].event);
			s->enabled[i] = s->enabled[--s->nenabled];
			break;
		}
	anchor(rsys, sizeof(rsys), system);
	anchor(revt, sizeof(revt), event);
	return tracefs_event_disable(s->inst, rsys, revt);
}

int bm_session_filter(struct bm_session *s, const char *system, const char *event,
		      const char *filter)
{
	if (tracefs_event_file_write(s->inst, system, event, "filter", filter) < 0) {
		bm_error_errno("cannot set the filter '%s' of %s:%s in %s", filter, system, event,
			       s->name);
		return -1;
	}
	return 0;
}

int bm_session_tracing(struct bm_session *s, bool on)
{
	return require(s, "tracing_on", on ? "1" : "0");
}

int bm_session_mark(struct bm_session *s, const char *text, size_t len)
{
	ssize_t n = write(s->marker_fd, text, len);

	if (n < 0) {
		bm_error_errno("cannot write a marker into '%s'", s->name);
		return -1;
	}
	return 0;
}

static char *cpu_stats_text(struct bm_session *s, int cpu)
{
	char file[64];

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	return tracefs_instance_file_read(s->inst, file, NULL);
}

int bm_session_cpu_stats(struct bm_session *s, int cpu, struct bm_cpu_stats *st)
{
	char *text = cpu_stats_text(s, cpu);

	if (!text) {
		bm_error_errno("cannot read %s/per_cpu/cpu%d/stats", s->name, cpu);
		return -1;
	}
	st->overrun = bm_cpustat_value(text, "overrun");
	st->commit_overrun = bm_cpustat_value(text, "commit overrun");
	st->dropped = bm_cpustat_value(text, "dropped events");
	st->entries = bm_cpustat_value(text, "entries");
	free(text);
	return 0;
}

static int add_format(struct bm_session *s, struct bm_trace_meta *meta,
		      const char *system, const char *event)
{
	char *text;
	int len, ret;

	text = tracefs_event_file_read(s->inst, system, event, "format", &len);
	if (!text) {
		bm_error_errno("cannot read the format of %s:%s", system, event);
		return -1;
	}
	ret = bm_trace_meta_add_format(meta, system, text, len);
	free(text);
	if (ret < 0)
		bm_error_errno("cannot save the format of %s:%s", system, event);
	return ret;
}

/*
 * The symbol the marker event's ip points into, and the next one to bound
 * it, so that trace-cmd's "%ps" names it; the whole of kallsyms is not
 * worth its megabytes here.
 */
struct marker_symbols {
	char kept[1024];
	size_t len;
	int found;		/* the marker's symbol, then the next one */
};

static bool keep_marker_symbol(void *ctx, const struct bm_ksym *sym)
{
	struct marker_symbols *m = ctx;

	if (!m->found && (strcmp(sym->name, "tracing_mark_write") ||
			  !sym->addr[strspn(sym->addr, "0")]))
		return true;
	m->len += snprintf(m->kept + m->len, sizeof(m->kept) - m->len, "%s", sym->line);
	return ++m->found < 2;
}

static void add_marker_symbols(struct bm_trace_meta *meta)
{
	struct marker_symbols m = { .len = 0 };

	if (bm_kallsyms_scan(keep_marker_symbol, &m) < 0)
		return;
	if (m.found == 2 && m.len < sizeof(m.kept) && (meta->kallsyms = strdup(m.kept)))
		meta->kallsyms_len = m.len;
}

int bm_session_collect_formats(struct bm_session *s, struct bm_trace_meta *meta)
{
	size_t i;
	int len;

	memset(meta, 0, sizeof(*meta));
	meta->ncpus = s->ncpus;
	meta->page_size = s->page_size;
	meta->long_size = s->long_size;
	meta->header_page = tracefs_instance_file_read(s->inst, "events/header_page", &len);
	meta->header_page_len = len;
	meta->header_event = tracefs_instance_file_read(s->inst, "events/header_event", &len);
	meta->header_event_len = len;
	if (!meta->header_page || !meta->header_event) {
		bm_error_errno("cannot read events/header_page");
		return -1;
	}
	if (add_format(s, meta, "ftrace", "print") < 0 ||
	    add_format(s, meta, "ftrace", "raw_data") < 0)
		return -1;
	for (i = 0; i < s->nenabled; i++)
		if (add_format(s, meta, s->enabled[i].system, s->enabled[i].event) < 0)
			return -1;
	add_marker_symbols(meta);
	meta->clock = strdup("mono");
	if (!meta->clock) {
		bm_error_errno("cannot collect the trace's formats");
		return -1;
	}
	return 0;
}

int bm_session_collect_final(struct bm_session *s, struct bm_trace_meta *meta)
{
	int cpu, len;

	free(meta->cmdlines);
	meta->cmdlines = tracefs_instance_file_read(NULL, "saved_cmdlines", &len);
	meta->cmdlines_len = meta->cmdlines ? len : 0;
	if (!meta->cpustats)
		meta->cpustats = calloc(s->ncpus, sizeof(*meta->cpustats));
	if (!meta->cpustats) {
		bm_error_errno("cannot collect the trace's statistics");
		return -1;
	}
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		free(meta->cpustats[cpu]);
		meta->cpustats[cpu] = cpu_stats_text(s, cpu);
	}
	return 0;
}

struct tracefs_instance *bm_session_instance(struct bm_session *s) { return s->inst; }
const char *bm_session_name(struct bm_session *s) { return s->name; }
int bm_session_ncpus(struct bm_session *s) { return s->ncpus; }
uint32_t bm_session_page_size(struct bm_session *s) { return s->page_size; }
