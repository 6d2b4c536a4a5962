// SPDX-License-Identifier: GPL-2.0-only
/*
 * The record pipeline. Signals (SIGINT, SIGTERM, SIGHUP, SIGCHLD) are
 * blocked from the start in every thread and read from a signalfd by the
 * main loop, so a signal at any moment ends in the same orderly stop.
 */
#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "blkmap/record/capture.h"
#include "blkmap/record/reclaim.h"
#include "blkmap/record/record.h"
#include "blkmap/record/registry.h"
#include "blkmap/record/ring.h"
#include "blkmap/record/spool.h"
#include "blkmap/record/trigger.h"
#include "blkmap/sources/cgroups.h"
#include "blkmap/sources/kmodule.h"
#include "blkmap/sources/kprobes.h"
#include "blkmap/sources/marker.h"
#include "blkmap/sources/session.h"
#include "blkmap/sources/sysfs.h"
#include "blkmap/sources/uevent.h"
#include "blkmap/tracefile/decode.h"
#include "blkmap/tracefile/meta.h"
#include "blkmap/tracefile/writer.h"
#include "blkmap/util/error.h"
#include "blkmap/util/sys.h"
#include "blkmap/util/tell.h"
#include "blkmap/util/tick.h"

#define FORMAT_VERSION 1	/* of blkmap's markers, see blkmap.dat(5) */
#define COMMIT_SLACK_NS	1000000	/* an event's time stamp precedes its commit by less */
#define DEFAULT_SUBBUF_KIB 16	/* where the kernel sizes sub-buffers */

static const char *const default_events[] = {
	"block:block_rq_insert",
	"block:block_rq_issue",
	"block:block_rq_complete",
	"block:block_rq_requeue",
	"block:block_bio_queue",
	"block:block_bio_complete",
	"block:block_bio_remap",
	"block:block_split",
	"block:block_getrq",
};

/*
 * What report --phases needs beyond the default: merges (M, F and a
 * request merged into another) and plugs (P, U), as btt reads them. A
 * profile (--events=phases), not the default: they cost fio 5 to 10 points
 * of its IOPS above the default events (record(1)). Recorded where the
 * kernel has them.
 */
static const char *const phase_events[][2] = {
	{ "block", "block_bio_backmerge" },
	{ "block", "block_bio_frontmerge" },
	{ "block", "block_rq_merge" },
	{ "block", "block_plug" },
	{ "block", "block_unplug" },
};

struct recorder {
	const struct bm_record_opts *opts;
	struct bm_record_result *res;
	struct bm_session *session;
	struct bm_capture *capture;
	struct bm_uevents *uevents;
	struct bm_kprobes *kprobes;
	struct bm_kmodule *kmodule;
	unsigned sources;
	struct bm_spool spool;		/* the spool directory, opened once */
	struct bm_output out;		/* the output's directory and name */
	int sig_fd;
	int notify_fd;		/* capture failures */
	struct rlimit nofile;	/* the limit on descriptors given, if raised */
	bool nofile_raised;
	pid_t child;
	struct bm_cpu_stats *start_stats;
	struct bm_trace_meta meta;	/* formats, from when tracing was armed */
	unsigned dump_id;
	int cgroup_events;		/* of the cgroup map's, enabled */
	struct bm_trigger *trigger;
	int trigger_fd;			/* a slow I/O was seen */
	int64_t snapshot_at;		/* ms: a triggered snapshot is due; -1 none */
	struct bm_trigger_hit hit;	/* the slow I/O it is due for */
	int64_t triggered[64];		/* when the last triggered snapshots were written */
	unsigned ntriggered;
	uint64_t last_tick;		/* trace time the live view's interval starts */
	bool registered;		/* in BM_REGISTRY_DIR */
	bool spool_ready;		/* meta.dat written: the spool is readable */
	bool keep_spool;		/* the output could not be written: keep it */
};

static int mark(void *ctx, const char *text, size_t len)
{
	return bm_session_mark(ctx, text, len);
}

/* A statedump from every dump source: the kernel-side ones first. */
static int dump(struct recorder *r, const char *reason)
{
	/* The module dumped when it attached, at the start. */
	if (r->kmodule && strcmp(reason, "start") && bm_kmodule_dump(r->kmodule) < 0)
		return -1;
	if (r->kprobes && bm_kprobes_dump(r->kprobes, ++r->dump_id, reason, mark, r->session) < 0)
		return -1;
	if (!(r->sources & BM_SRC_SYSFS))
		return 0;
	/*
	 * User space's statedumps, of sysfs and of the cgroups: the cgroup
	 * map's changes are its events, so it is dumped once, at the start.
	 */
	if (r->cgroup_events && !strcmp(reason, "start") &&
	    bm_cgroups_dump("", "/proc", ++r->dump_id, mark, r->session) < 0)
		bm_tell(r->opts->warn, "%s", bm_error_message());
	return bm_sysfs_dump("/sys", ++r->dump_id, reason, mark, r->session) < 0 ? -1 : 0;
}

/*
 * The cgroup map's events the kernel has (sources/cgroups.h), of cgroup
 * v2 alone (its hierarchy is 0; a hybrid host's v1 hierarchies move every
 * task too). A kernel without a filter records them all: the map reads
 * the hierarchy of each.
 */
static int enable_cgroup_events(struct recorder *r)
{
	const char *const *e;

	for (e = bm_cgroup_events; *e; e++) {
		const char *event = strchr(*e, ':') + 1;
		char system[16];

		snprintf(system, sizeof(system), "%.*s", (int)(event - 1 - *e), *e);
		if (!bm_session_has_event(r->session, system, event))
			continue;
		if (bm_session_enable(r->session, *e) < 0)
			return -1;
		r->cgroup_events++;
		/*
		 * A flusher is a kworker, in the root cgroup: its writebacks for
		 * the root (the root cgroup's inode is 1) tell nothing, and are
		 * all of them where the kernel has no cgroup writeback.
		 */
		if (!strcmp(system, "writeback") &&
		    bm_session_filter(r->session, system, event, "cgroup_ino != 1") < 0)
			bm_tell(r->opts->notify, "%s: recording the root's writebacks too",
				bm_error_message());
		if (strcmp(system, "cgroup"))
			continue;
		if (bm_session_filter(r->session, system, event,
				      strstr(event, "task") ? "dst_root == 0" : "root == 0") < 0)
			bm_tell(r->opts->notify, "%s: recording every hierarchy's", bm_error_message());
	}
	if (!r->cgroup_events)
		bm_tell(r->opts->notify, "this kernel has no cgroup or sched events: the I/O's "
			"cgroups cannot be told");
	return 0;
}

/* The events of --phases the kernel has; those it lacks are named. */
static int enable_phase_events(struct recorder *r)
{
	char spec[128];
	size_t i;

	for (i = 0; i < sizeof(phase_events) / sizeof(phase_events[0]); i++) {
		snprintf(spec, sizeof(spec), "%s:%s", phase_events[i][0], phase_events[i][1]);
		if (!bm_session_has_event(r->session, phase_events[i][0], phase_events[i][1])) {
			bm_tell(r->opts->notify, "this kernel has no %s: report --phases will "
				"lack what it shows", spec);
			continue;
		}
		if (bm_session_enable(r->session, spec) < 0)
			return -1;
	}
	return 0;
}

/*
 * Where spool files and the unfinished output live: beside the output;
 * without one, in $TMPDIR or /tmp. The output's directory is opened here,
 * once: the spool and the file are made in it, whatever its path names
 * later.
 */
static int make_spool_dir(struct recorder *r)
{
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char dir[PATH_MAX];
	int fd, ret;

	if (!r->opts->output) {
		fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			bm_error_errno("cannot open '%s' for the spool", tmp);
			return -1;
		}
		ret = bm_spool_make(&r->spool, fd, tmp);
		close(fd);
		return ret;
	}
	if (bm_output_open(&r->out, r->opts->output) < 0)
		return -1;
	snprintf(dir, sizeof(dir), "%s", r->opts->output);
	if (bm_spool_make(&r->spool, r->out.dir, dirname(dir)) < 0) {
		char cause[1024];

		snprintf(cause, sizeof(cause), "%s", bm_error_message());
		bm_error("cannot write '%s': %s", r->opts->output, cause);
		return -1;
	}
	return 0;
}

/* A path to what descriptor @fd is, for what takes paths: the same file, whatever its name now. */
static void fd_path(char *buf, size_t size, int fd, const char *name)
{
	snprintf(buf, size, "/proc/self/fd/%d%s%s", fd, name ? "/" : "", name ? name : "");
}

/*
 * The wall clock and the trace clock (mono) read together: the realtime
 * reading is the middle of two around the monotonic one. 0s if a clock
 * cannot be read.
 */
static void clocks(uint64_t *wall_ns, uint64_t *mono_ns)
{
	struct timespec r1, m, r2;

	*wall_ns = *mono_ns = 0;
	if (clock_gettime(CLOCK_REALTIME, &r1) || clock_gettime(CLOCK_MONOTONIC, &m) ||
	    clock_gettime(CLOCK_REALTIME, &r2))
		return;
	*wall_ns = ((uint64_t)r1.tv_sec * 1000000000 + r1.tv_nsec) / 2 +
		   ((uint64_t)r2.tv_sec * 1000000000 + r2.tv_nsec) / 2;
	*mono_ns = (uint64_t)m.tv_sec * 1000000000 + m.tv_nsec;
}

/*
 * The sources this kernel offers, as far as can be told before arming
 * them: the module loaded, kprobe events, the tracepoint; uevents and
 * sysfs are always there.
 */
static unsigned offered_sources(struct recorder *r)
{
	unsigned mask = BM_SRC_UEVENT | BM_SRC_SYSFS;

	if (access(BM_MODULE_CONTROL, F_OK) == 0)
		mask |= BM_SRC_MODULE;
	if (tracefs_file_exists(NULL, "kprobe_events"))
		mask |= BM_SRC_KPROBE;
	if (tracefs_event_file_exists(NULL, "writeback", "writeback_bdi_register", "format"))
		mask |= BM_SRC_TRACEPOINT;
	return mask;
}

/*
 * A source that cannot be armed, its reason in bm_error_message(). With
 * the default (all this kernel offers) the recording goes on without it;
 * one the user named is refused: -1, and the recording is not made.
 */
static int without(struct recorder *r, enum bm_source src)
{
	char name[32], offered[128], why[512];

	if (!r->opts->sources_named) {
		bm_tell(r->opts->notify, "%s", bm_error_message());
		r->sources &= ~src;
		return 0;
	}
	bm_sources_str(src, ',', name, sizeof(name));
	bm_sources_str(offered_sources(r) & ~src, ',', offered, sizeof(offered));
	snprintf(why, sizeof(why), "%s", bm_error_message());	/* bm_error() overwrites it */
	bm_error("%s; --sources asked for %s: leave it out, or use what this kernel offers (%s)",
		 why, name, offered);
	return -1;
}

/* Sources named by --sources that this kernel plainly lacks: refused before recording. */
static int check_named_sources(struct recorder *r)
{
	static const struct {
		enum bm_source src;
		const char *why;
	} lacks[] = {
		{ BM_SRC_MODULE, "module: the blkmap module is not loaded (insmod module/blkmap.ko)" },
		{ BM_SRC_KPROBE, "kprobe: no kprobe_events in tracefs (CONFIG_KPROBE_EVENTS is off)" },
		{ BM_SRC_TRACEPOINT, "tracepoint: no writeback:writeback_bdi_register" },
	};
	unsigned offered = offered_sources(r);
	unsigned missing = r->opts->sources_named ? r->sources & ~offered : 0;
	char why[512] = "", names[128];
	size_t i, n = 0;

	if (!missing)
		return 0;
	for (i = 0; i < sizeof(lacks) / sizeof(lacks[0]); i++)
		if (missing & lacks[i].src)
			n += snprintf(why + n, n < sizeof(why) ? sizeof(why) - n : 0, "%s%s",
				      n ? "; " : "", lacks[i].why);
	bm_error("--sources asked for what this kernel does not offer: %s; leave it out, or use "
		 "what it offers (%s)", why, bm_sources_str(offered, ',', names, sizeof(names)));
	return -1;
}

static int arm_sources(struct recorder *r)
{
	uint64_t wall_ns, mono_ns;
	char names[128];
	struct bm_marker m;
	struct bm_tick tick;

	if (r->sources & BM_SRC_MODULE) {
		r->kmodule = bm_kmodule_attach(r->session);
		if (r->kmodule)
			bm_tell(r->opts->notify, "module source: attached");
		else if (without(r, BM_SRC_MODULE) < 0)
			return -1;
	}
	if (r->sources & BM_SRC_KPROBE) {
		r->kprobes = bm_kprobes_arm(r->session);
		if (r->kprobes)
			bm_tell(r->opts->notify, "kprobe source: %s",
				bm_kprobes_summary(r->kprobes));
		else if (without(r, BM_SRC_KPROBE) < 0)
			return -1;
	}
	if ((r->sources & BM_SRC_TRACEPOINT) &&
	    !bm_session_has_event(r->session, "writeback", "writeback_bdi_register")) {
		bm_error("tracepoint source: writeback:writeback_bdi_register is not available on "
			 "this kernel");
		if (without(r, BM_SRC_TRACEPOINT) < 0)
			return -1;
	}
	if ((r->sources & BM_SRC_TRACEPOINT) &&
	    bm_session_enable(r->session, "writeback:writeback_bdi_register") < 0)
		return -1;
	if (r->sources & BM_SRC_UEVENT) {
		r->uevents = bm_uevents_start(mark, r->session);
		if (!r->uevents)
			return -1;
	}
	bm_sources_str(r->sources, ',', names, sizeof(names));
	bm_tell(r->opts->notify, "map sources: %s", names[0] ? names : "none");

	tick = bm_tick_read();
	clocks(&wall_ns, &mono_ns);
	bm_marker_begin(&m, "record-begin");
	bm_marker_addf(&m, "version", "%d", FORMAT_VERSION);
	bm_marker_addf(&m, "pid", "%d", (int)getpid());
	bm_marker_add(&m, "sources", names);
	if (tick.ns) {	/* for the time in queue of bio-based devices, counted in jiffies */
		bm_marker_addf(&m, "tick_ns", "%" PRIu64, tick.ns);
		bm_marker_addf(&m, "tick_at", "%" PRIu64, tick.at);
	}
	/* The wall clock beside the trace clock (mono): what --time=wall prints from. */
	if (wall_ns && mono_ns) {
		bm_marker_addf(&m, "wall_ns", "%" PRIu64, wall_ns);
		bm_marker_addf(&m, "mono_ns", "%" PRIu64, mono_ns);
	}
	return bm_session_mark(r->session, m.text, m.len);
}

/*
 * The formats, saved once every event is enabled: into the spool, so that
 * what a recorder that died had spooled can be read (blkmap recover).
 */
static int write_spool_meta(struct recorder *r)
{
	char path[PATH_MAX + 16], self[64];
	int fd, ret = -1;

	if (bm_session_collect_formats(r->session, &r->meta) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/" BM_SPOOL_META, r->spool.path);
	fd = openat(r->spool.fd, BM_SPOOL_META,
		    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, BM_OUTPUT_MODE);
	if (fd < 0) {
		bm_error_errno("cannot create '%s'", path);
		return -1;
	}
	ret = bm_trace_write(fd, path, &r->meta, NULL);
	r->spool_ready = ret == 0;
	/* Read back by its descriptor: the file written, whatever the spool's name is now. */
	fd_path(self, sizeof(self), fd, NULL);
	if (ret == 0 && bm_capture_ring(r->capture))
		ret = bm_ring_learn(bm_capture_ring(r->capture), self);
	if (ret == 0 && r->opts->trigger) {
		r->trigger = bm_trigger_new(r->opts->trigger, self, r->trigger_fd);
		if (!r->trigger || bm_ring_reserve_hold(bm_capture_ring(r->capture)) < 0)
			ret = -1;
		else
			bm_capture_set_trigger(r->capture, r->trigger);
	}
	close(fd);
	return ret;
}

static int arm(struct recorder *r)
{
	const struct bm_record_opts *o = r->opts;
	char self[64];
	size_t i;
	int cpu;

	if (bm_session_check_access() < 0)
		return -1;
	bm_reclaim(r->opts->notify);	/* what dead recorders left */
	/*
	 * The capture takes eleven descriptors or so per CPU from 5 CPUs on
	 * (splice's pipes; more a CPU on fewer): more than the usual soft
	 * limit of 1024 on a large machine.
	 */
	if (getrlimit(RLIMIT_NOFILE, &r->nofile) == 0 && r->nofile.rlim_cur < r->nofile.rlim_max)
		r->nofile_raised = setrlimit(RLIMIT_NOFILE, &(struct rlimit){
			r->nofile.rlim_max, r->nofile.rlim_max }) == 0;
	/*
	 * Where the kernel sizes sub-buffers (6.8+), 16 KiB unless asked: they
	 * are spliced into the spool, at two thirds of read(2)'s cost per
	 * event (capture.c). A flight recording reads pages of the kernel's
	 * size. Sources asked for by name that this kernel lacks are refused
	 * before anything is made; then the instance: what the user asked of
	 * it is refused before the spool exists.
	 */
	if (check_named_sources(r) < 0)
		return -1;
	r->session = bm_session_create(&(struct bm_session_opts){
		.buffer_kib = o->buffer_kib, .subbuf_kib = o->subbuf_kib,
		.wish_buffer_kib = BM_DEFAULT_BUFFER_KIB,
		.wish_subbuf_kib = o->ring_bytes ? 0 : DEFAULT_SUBBUF_KIB,
		.warn = o->warn });
	if (!r->session)
		return -1;
	if (make_spool_dir(r) < 0)
		return -1;
	fd_path(self, sizeof(self), r->spool.fd, NULL);
	if (bm_registry_add(self, r->opts->output ? r->opts->output : "") == 0)
		r->registered = true;
	else
		bm_tell(r->opts->notify, "%s; a crash would leave the spool unregistered",
			bm_error_message());
	for (i = 0; i < sizeof(default_events) / sizeof(default_events[0]); i++)
		if (bm_session_enable(r->session, default_events[i]) < 0)
			return -1;
	if (o->phase_events && enable_phase_events(r) < 0)
		return -1;
	if (enable_cgroup_events(r) < 0)
		return -1;
	for (i = 0; i < (size_t)o->nevents; i++)
		if (bm_session_enable(r->session, o->events[i]) < 0)
			return -1;
	r->res->ncpus = bm_session_ncpus(r->session);
	r->start_stats = calloc(r->res->ncpus, sizeof(*r->start_stats));
	if (!r->start_stats) {
		bm_error_errno("cannot record");
		return -1;
	}
	r->capture = bm_capture_start(bm_session_instance(r->session), r->res->ncpus,
				      bm_session_page_size(r->session), &r->spool,
				      o->ring_bytes, r->notify_fd);
	if (!r->capture)
		return -1;
	if (o->ring_bytes && r->registered) {
		char size[32];

		snprintf(size, sizeof(size), "%llu", (unsigned long long)o->ring_bytes);
		bm_registry_note("ring", size);
	}
	for (cpu = 0; cpu < r->res->ncpus; cpu++)
		if (bm_session_cpu_stats(r->session, cpu, &r->start_stats[cpu]) < 0)
			return -1;
	if (bm_session_tracing(r->session, true) < 0 || arm_sources(r) < 0 ||
	    write_spool_meta(r) < 0 || dump(r, "start") < 0)
		return -1;
	/* The map's first records reach the disk before the workload starts. */
	bm_capture_flush(r->capture);
	r->last_tick = bm_now_ns();
	return 0;
}

/*
 * In the child: become --user's user, with their groups, and their
 * HOME, USER and LOGNAME. The recorder stays root; the workload need not.
 */
static int become_user(const struct bm_record_opts *o)
{
	if (!o->user)
		return 0;
	if (initgroups(o->user, o->user_gid) < 0 || setgid(o->user_gid) < 0 ||
	    setuid(o->user_uid) < 0)
		return -1;
	setenv("HOME", o->user_home, 1);
	setenv("USER", o->user, 1);
	setenv("LOGNAME", o->user, 1);
	return 0;
}

/* Start the command once tracing is armed; report exec failure. */
static int start_command(struct recorder *r)
{
	int pipefd[2], err = 0;
	sigset_t none;
	ssize_t n;

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		bm_error_errno("cannot start '%s'", r->opts->argv[0]);
		return -1;
	}
	r->child = fork();
	if (r->child < 0) {
		bm_error_errno("cannot start '%s'", r->opts->argv[0]);
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (r->child == 0) {
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (r->nofile_raised)	/* the command's as the recorder was given it */
			setrlimit(RLIMIT_NOFILE, &r->nofile);
		if (become_user(r->opts) == 0)
			execvp(r->opts->argv[0], r->opts->argv);
		err = errno;
		n = write(pipefd[1], &err, sizeof(err));
		(void)n;
		_exit(127);
	}
	close(pipefd[1]);
	do
		n = read(pipefd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n == sizeof(err)) {
		waitpid(r->child, NULL, 0);
		r->child = 0;
		errno = err;
		bm_error_errno("cannot run '%s'%s%s", r->opts->argv[0],
			       r->opts->user ? " as " : "", r->opts->user ? r->opts->user : "");
		r->res->command_status = 127;
		return -1;
	}
	r->res->has_command = true;
	return 0;
}

static void reap(struct recorder *r)
{
	int status;

	if (r->child <= 0 || waitpid(r->child, &status, WNOHANG) != r->child)
		return;
	r->child = 0;
	r->res->command_status = WIFEXITED(status) ? WEXITSTATUS(status) :
				 128 + WTERMSIG(status);
}

void bm_snapshot_path(char *buf, size_t size, const char *output, unsigned n)
{
	size_t len = strlen(output);

	if (len > 4 && !strcmp(output + len - 4, ".dat"))
		snprintf(buf, size, "%.*s.%u.dat", (int)(len - 4), output, n);
	else
		snprintf(buf, size, "%s.%u", output, n);
}

/*
 * A flight recording's window so far, into the next free out.N.dat; the
 * recording goes on, whatever becomes of the snapshot.
 */
static void snapshot(struct recorder *r, const struct bm_trigger_hit *why)
{
	struct bm_ring *ring = bm_capture_ring(r->capture);
	struct bm_output snap;
	char path[PATH_MAX];
	uint64_t bytes;
	unsigned n = r->res->snapshots;

	if (!ring || !r->opts->output) {
		bm_tell(r->opts->warn, "a snapshot needs a flight recording into a file (record "
			"--ring -o FILE); recording goes on");
		return;
	}
	/* In the output's directory, as opened at the start: a name of its own. */
	snap = r->out;
	do {
		bm_snapshot_path(path, sizeof(path), r->opts->output, ++n);
		snprintf(snap.path, sizeof(snap.path), "%s", path);
		snprintf(snap.name, sizeof(snap.name), "%s",
			 strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	} while (bm_output_exists(&snap));
	bm_capture_flush(r->capture);
	if (bm_session_collect_final(r->session, &r->meta) < 0 ||
	    bm_ring_snapshot(ring, &r->meta, &snap, r->opts->compression, &bytes) < 0) {
		bm_tell(r->opts->warn, "snapshot failed: %s; recording goes on",
			bm_error_message());
		return;
	}
	r->res->snapshots = n;
	if (r->registered)
		bm_registry_note("snapshot", path);
	if (!why) {
		bm_tell(r->opts->notify, "snapshot %s (%.1f KiB)", path, bytes / 1024.0);
		return;
	}
	/* Which I/O it is for, as report --slowest prints it: its device, sector, completion. */
	bm_tell(r->opts->notify, "snapshot %s (%.1f KiB) of the slow I/O: %u:%u sector %llu, "
		"%s %.3f us, completed at ts_ns %llu (report --slowest=1 --dev %u:%u lists the "
		"snapshot's slowest there)", path, bytes / 1024.0, BM_MAJOR(why->dev),
		BM_MINOR(why->dev), (unsigned long long)why->sector, why->d2c ? "D2C" : "Q2C",
		why->latency_ns / 1e3, (unsigned long long)why->end_ts, BM_MAJOR(why->dev),
		BM_MINOR(why->dev));
}

/*
 * The interval since the last tick, for the live view: the ring as it is
 * now, in a file the callback reads. It ends where every CPU's events are
 * known to be in the ring (the trace clock is mono): where the oldest of
 * their last drains began, less a millisecond for an event being written
 * then. A drain that lags (a slow machine) shortens this interval and
 * lengthens the next; no event falls between two.
 */
static int tick(struct recorder *r)
{
	struct bm_output live = { .dir = r->spool.fd, .name = "live.dat" };
	char path[64];
	uint64_t until;
	int stop;

	snprintf(live.path, sizeof(live.path), "%s/live.dat", r->spool.path);
	fd_path(path, sizeof(path), r->spool.fd, live.name);
	bm_capture_flush(r->capture);
	until = bm_capture_drained(r->capture);
	until = until > COMMIT_SLACK_NS ? until - COMMIT_SLACK_NS : 0;
	if (until < r->last_tick)
		until = r->last_tick;
	if (bm_session_collect_final(r->session, &r->meta) < 0 ||
	    bm_ring_snapshot(bm_capture_ring(r->capture), &r->meta, &live, BM_COMPRESS_NONE,
			     NULL) < 0)
		return -1;
	stop = r->opts->tick(r->opts->tick_ctx, path, r->last_tick, until);
	unlinkat(r->spool.fd, live.name, 0);
	r->last_tick = until + 1;
	return stop;
}

/*
 * End the ring's hold, unless a slow I/O held it again since @gen was read;
 * a failure costs the recording nothing but a warning.
 */
static void release(struct recorder *r, uint64_t gen)
{
	if (bm_ring_release(bm_capture_ring(r->capture), gen) < 0)
		bm_tell(r->opts->warn, "%s; recording goes on", bm_error_message());
}

/* The snapshot due after a slow I/O: written, and the ring's hold ended. */
static void triggered_snapshot(struct recorder *r)
{
	uint64_t gen = bm_ring_hold_gen(bm_capture_ring(r->capture));

	snapshot(r, &r->hit);
	r->triggered[r->ntriggered++ % 64] = bm_now_ms();
	r->snapshot_at = -1;
	release(r, gen);
}

/* Snapshots the trigger wrote in the last minute. */
static unsigned triggered_lately(struct recorder *r, int64_t now)
{
	unsigned i, n = 0;

	for (i = 0; i < r->ntriggered && i < 64; i++)
		n += now - r->triggered[i] < 60000;
	return n;
}

/*
 * A slow I/O was seen: a snapshot once --post has passed, within the
 * limit. The capture held the ring when it saw it (ring.h); the hold
 * lasts while a snapshot is due. A ring's worth held before --post ran
 * out brings the snapshot forward.
 */
static void triggered(struct recorder *r)
{
	struct bm_ring *ring = bm_capture_ring(r->capture);
	uint64_t gen = bm_ring_hold_gen(ring);	/* the hits' holds so far */
	struct bm_trigger_hit hit;
	int64_t now = bm_now_ms();
	eventfd_t count;
	char dev[32];

	eventfd_read(r->trigger_fd, &count);
	if (bm_trigger_take(r->trigger, &hit) && r->snapshot_at < 0) {
		snprintf(dev, sizeof(dev), "%u:%u", BM_MAJOR(hit.dev), BM_MINOR(hit.dev));
		if (triggered_lately(r, now) >= r->opts->snapshots_per_minute) {
			bm_tell(r->opts->notify, "an I/O on %s took %.3f ms (%s) at %.6f: no "
				"snapshot, %u were written in the last minute (--snapshot-limit)",
				dev, hit.latency_ns / 1e6, hit.d2c ? "D2C" : "Q2C",
				hit.end_ts / 1e9, r->opts->snapshots_per_minute);
		} else {
			r->snapshot_at = now + (int64_t)(r->opts->post_s * 1000);
			r->hit = hit;
			bm_tell(r->opts->notify, "an I/O on %s took %.3f ms (%s), sector %llu, "
				"ending at %.6f: snapshot in %.1f s", dev, hit.latency_ns / 1e6,
				hit.d2c ? "D2C" : "Q2C", (unsigned long long)hit.sector,
				hit.end_ts / 1e9, r->opts->post_s);
		}
	}
	if (r->snapshot_at > now && bm_ring_hold_full(ring)) {
		bm_tell(r->opts->notify, "a CPU's ring went round once since the slow I/O: the "
			"snapshot now, %.1f s before --post ran out", (r->snapshot_at - now) / 1e3);
		r->snapshot_at = now;
	}
	if (r->snapshot_at < 0)
		release(r, gen);	/* nothing due: nothing to hold for */
}

/*
 * Record until the command exits, the duration passes, or a signal says
 * stop. With a command, a signal is forwarded to it (unless the terminal
 * already sent it to the whole process group) and recording goes on until
 * it exits; a second signal stops at once.
 */
static int wait_for_stop(struct recorder *r)
{
	int64_t deadline = r->opts->duration > 0 ?
			   bm_now_ms() + (int64_t)(r->opts->duration * 1000) : -1;
	int64_t next_tick = bm_now_ms() + (int64_t)(r->opts->tick_s * 1000);
	struct pollfd fds[3] = {
		{ .fd = r->sig_fd, .events = POLLIN },
		{ .fd = r->notify_fd, .events = POLLIN },
		{ .fd = r->trigger_fd, .events = POLLIN },
	};
	int signals = 0;

	for (;;) {
		int timeout = -1;

		if (r->opts->argv) {
			reap(r);
			if (r->child <= 0)
				return 0;
		}
		if (deadline >= 0) {
			int64_t left = deadline - bm_now_ms();

			if (left <= 0) {
				if (!r->opts->argv || r->child <= 0)
					return 0;
				/* Like timeout(1): end the command, then stop. */
				kill(r->child, SIGTERM);
				deadline = -1;
				continue;
			}
			timeout = left;
		}
		if (r->opts->tick) {
			int64_t left = next_tick - bm_now_ms(), stop;

			if (left <= 0) {
				stop = tick(r);
				if (stop < 0)
					return -1;
				if (stop)
					return 0;
				next_tick += (int64_t)(r->opts->tick_s * 1000);
				continue;
			}
			if (timeout < 0 || left < timeout)
				timeout = left;
		}
		if (r->snapshot_at >= 0) {
			int64_t left = r->snapshot_at - bm_now_ms();

			if (left <= 0) {
				triggered_snapshot(r);
				continue;
			}
			if (timeout < 0 || left < timeout)
				timeout = left;
		}
		if (poll(fds, 3, timeout) < 0 && errno != EINTR) {
			bm_error_errno("cannot wait for the recording to end");
			return -1;
		}
		if (fds[1].revents & POLLIN)
			return -1;	/* a capture thread failed */
		if (fds[2].revents & POLLIN)
			triggered(r);
		if (fds[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(r->sig_fd, &si, sizeof(si)) != sizeof(si) || si.ssi_signo == SIGCHLD)
				continue;
			/* The recording is worth more than one dump: go on without it. */
			if (si.ssi_signo == SIGUSR1 && dump(r, "request") < 0)
				bm_tell(r->opts->warn, "the statedump on request failed: %s; "
					"recording goes on", bm_error_message());
			if (si.ssi_signo == SIGUSR2)
				snapshot(r, NULL);
			if (si.ssi_signo == SIGUSR1 || si.ssi_signo == SIGUSR2)
				continue;
			if (!r->opts->argv || r->child <= 0 || ++signals > 1) {
				if (r->child > 0) {
					r->res->command_running = true;
					bm_tell(r->opts->notify, "stopping; '%s' (pid %d) is still "
						"running", r->opts->argv[0], (int)r->child);
				}
				return 0;
			}
			if (si.ssi_code != SI_KERNEL)
				kill(r->child, si.ssi_signo);
			bm_tell(r->opts->notify, "waiting for '%s' to exit (signal again to stop "
				"now)", r->opts->argv[0]);
		}
	}
}

static int stop(struct recorder *r)
{
	struct bm_cpu_stats st;
	struct bm_marker m;
	uint64_t uevents;
	int cpu, ret = 0;

	/* Without the end dump or marker the map is less precise, not wrong. */
	if (dump(r, "end") < 0)
		bm_tell(r->opts->warn, "the statedump at the end failed: %s; the file is written "
			"without it", bm_error_message());
	uevents = bm_uevents_stop(r->uevents);
	r->uevents = NULL;
	bm_marker_begin(&m, "record-end");
	if (r->sources & BM_SRC_UEVENT)
		bm_marker_addf(&m, "uevents", "%llu", (unsigned long long)uevents);
	if (bm_session_mark(r->session, m.text, m.len) < 0)
		bm_tell(r->opts->warn, "%s; the file is written without its end marker",
			bm_error_message());
	if (bm_session_tracing(r->session, false) < 0)
		ret = -1;
	if (bm_capture_stop(r->capture) < 0)
		return -1;
	for (cpu = 0; cpu < r->res->ncpus; cpu++) {
		uint64_t lost;

		if (bm_session_cpu_stats(r->session, cpu, &st) < 0)
			return -1;
		lost = (st.overrun - r->start_stats[cpu].overrun) +
		       (st.dropped - r->start_stats[cpu].dropped);
		if (cpu < 64)
			r->res->lost_per_cpu[cpu] = lost;
		r->res->lost += lost;
	}
	return ret;
}

static int write_file(struct recorder *r)
{
	struct bm_ring *ring = bm_capture_ring(r->capture);
	int cpu;

	if (!r->opts->output)
		return 0;
	if (bm_session_collect_final(r->session, &r->meta) < 0)
		return -1;
	for (cpu = 0; cpu < r->res->ncpus; cpu++)
		r->res->events += bm_cpustat_value(r->meta.cpustats[cpu], "read events");
	if (ring) {
		bm_ring_stats(ring, &r->res->ring_dropped, &r->res->ring_kept);
		return bm_ring_write(ring, &r->meta, &r->out, r->opts->compression,
				     &r->res->file_bytes);
	}
	return bm_spool_write_out(&r->spool, &r->meta, &r->out, r->opts->compression,
				  &r->res->file_bytes);
}

/*
 * Remove everything the recording created; safe to call twice. A spool
 * that holds what could not be written out is kept, with its registry
 * entry, for 'blkmap recover' or 'blkmap reset'.
 */
static void teardown(struct recorder *r)
{
	if (r->capture)
		bm_capture_stop(r->capture);
	bm_uevents_stop(r->uevents);
	r->uevents = NULL;
	bm_capture_free(r->capture);
	r->capture = NULL;
	bm_trigger_free(r->trigger);	/* no capture thread looks at it now */
	r->trigger = NULL;
	if (r->trigger_fd >= 0)
		close(r->trigger_fd);
	r->trigger_fd = -1;
	/* The module holds the instance's event file: let go before rmdir. */
	bm_kmodule_detach(r->kmodule);
	r->kmodule = NULL;
	bm_session_destroy(r->session);
	r->session = NULL;
	/* After the instance: probes enabled anywhere cannot be removed. */
	bm_kprobes_remove(r->kprobes);
	r->kprobes = NULL;
	if (r->spool.fd >= 0 && !r->keep_spool) {
		bm_spool_remove(&r->spool);
		if (r->registered)
			bm_registry_remove();
		r->registered = false;
	}
	bm_spool_close(&r->spool);
	bm_output_close(&r->out);
	if (r->notify_fd >= 0)
		close(r->notify_fd);
	r->notify_fd = -1;
	free(r->start_stats);
	r->start_stats = NULL;
	bm_trace_meta_release(&r->meta);
}

/* The output could not be written: keep what was recorded, and say where. */
static void keep_spool(struct recorder *r)
{
	char cause[1024];

	if (!r->spool_ready)
		return;
	if (bm_capture_ring(r->capture)) {
		/* A ring's pages are out of order: nothing could read them back. */
		snprintf(cause, sizeof(cause), "%s", bm_error_message());
		bm_error("%s; the flight recording's last window is lost", cause);
		return;
	}
	r->keep_spool = true;
	snprintf(cause, sizeof(cause), "%s", bm_error_message());
	bm_error("%s; what was recorded is kept in '%s': read it with 'blkmap report %s', "
		 "or write it out elsewhere with 'blkmap recover %s -o FILE'", cause,
		 r->spool.path, r->spool.path, r->spool.path);
}

/* Wait for the command, passing signals on; its status goes into the result. */
static void wait_command(struct recorder *r)
{
	struct signalfd_siginfo si;

	struct pollfd pfd = { .fd = r->sig_fd, .events = POLLIN };

	while (r->child > 0) {
		reap(r);
		if (r->child <= 0)
			break;
		if (poll(&pfd, 1, -1) < 0 || read(r->sig_fd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo != SIGCHLD && si.ssi_signo != SIGUSR1 && si.ssi_signo != SIGUSR2 &&
		    si.ssi_code != SI_KERNEL)
			kill(r->child, si.ssi_signo);
	}
}

int bm_record(const struct bm_record_opts *opts, struct bm_record_result *res)
{
	struct recorder r = { .opts = opts, .res = res, .sig_fd = -1, .notify_fd = -1,
			      .trigger_fd = -1, .snapshot_at = -1, .spool = BM_SPOOL_INIT,
			      .out = { .dir = -1 } };
	char failure_status[1024];
	sigset_t mask, old;
	int ret = -1, stopped;

	memset(res, 0, sizeof(*res));
	r.sources = opts->sources;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGUSR1);	/* a statedump on request */
	sigaddset(&mask, SIGUSR2);	/* a snapshot of a flight recording */
	/* Before any thread exists, so that every thread inherits it. */
	sigprocmask(SIG_BLOCK, &mask, &old);
	r.sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	r.notify_fd = eventfd(0, EFD_CLOEXEC);
	r.trigger_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r.sig_fd < 0 || r.notify_fd < 0 || r.trigger_fd < 0) {
		bm_error_errno("cannot record");
		goto out;
	}
	if (arm(&r) < 0)
		goto out;
	bm_tell(opts->notify, "recording into instance %s, pages by %s%s",
		bm_session_name(r.session), bm_capture_path(r.capture),
		opts->argv ? "" : "; Ctrl-C to stop");
	if (opts->argv && start_command(&r) < 0) {
		/* Keep what was recorded; the caller exits with 127. */
		char saved[1024];

		snprintf(saved, sizeof(saved), "%s", bm_error_message());
		if (stop(&r) == 0 && write_file(&r) == 0)
			bm_error("%s", saved);
		goto out;
	}
	stopped = wait_for_stop(&r);
	if (stopped == 0 && r.snapshot_at >= 0) {
		bm_tell(opts->notify, "stopping with a triggered snapshot due: written now");
		triggered_snapshot(&r);
	}
	if (stopped < 0) {
		const char *failure = bm_capture_failure(r.capture);

		if (failure)
			bm_error("recording stopped: %s", failure);
		keep_spool(&r);
		if (r.child > 0) {
			/* Tracing ends now; the command is the user's: let it finish. */
			bm_tell(opts->notify, "%s; waiting for '%s' (pid %d) to exit",
				bm_error_message(), opts->argv[0], (int)r.child);
			snprintf(failure_status, sizeof(failure_status), "%s", bm_error_message());
			teardown(&r);
			wait_command(&r);
			bm_error("%s", failure_status);
		}
		goto out;
	}
	if (stop(&r) < 0 || write_file(&r) < 0) {
		keep_spool(&r);
		goto out;
	}
	ret = 0;
out:
	teardown(&r);
	if (r.sig_fd >= 0) {
		struct signalfd_siginfo si;

		/* Signals that came while stopping asked for what was done. */
		while (read(r.sig_fd, &si, sizeof(si)) == sizeof(si))
			;
		close(r.sig_fd);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}
