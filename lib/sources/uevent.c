// SPDX-License-Identifier: GPL-2.0-only
/*
 * Block uevents from the kernel's netlink multicast group (and NVMe
 * controllers', for the hidden path disks that have none). A uevent has
 * no timestamp: the marker written on receipt bounds the kernel event
 * from above only. Markers are written in SEQNUM order, the order in
 * which the kernel made the changes.
 *
 * A lower bound comes from the kernel's uevent counter: after writing each
 * marker the listener reads /sys/kernel/uevent_seqnum. A uevent numbered
 * above that value was sent after the marker; its marker says fresh=1, and
 * the change it reports happened after the listener's previous marker.
 * When idle, the listener writes an "uevent-idle" marker now and then, so
 * that this lower bound stays close: every 100 ms for a few seconds after a
 * uevent (hotplug comes in bursts), every second otherwise.
 *
 * The same thread watches the mount table (mounts.h): the kernel marks
 * /proc/self/mountinfo with POLLPRI when it changes. Before each wait the
 * thread checks it without waiting; a change found then, or during the
 * wait, came after the previous check that found none (CLOCK_MONOTONIC,
 * the trace clock mono), which its markers carry as their lower bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "blkmap/sources/marker.h"
#include "blkmap/sources/mounts.h"
#include "blkmap/sources/sysfs.h"
#include "blkmap/sources/uevent.h"
#include "blkmap/util/error.h"
#include "blkmap/util/sys.h"

#define KERNEL_GROUP	1
#define RCVBUF		(4 << 20)
#define IDLE_BUSY_MS	100
#define IDLE_QUIET_MS	1000
#define BUSY_FOR_MS	3000

struct bm_uevents {
	int sock;
	int stop_fd;
	int seqnum_fd;		/* /sys/kernel/uevent_seqnum */
	uint64_t horizon;	/* seqnum read after our last marker */
	bm_mark_fn mark;
	void *ctx;
	pthread_t thread;
	atomic_uint_fast64_t count;
	struct bm_mounts *mounts;	/* NULL: mountinfo unreadable */
	uint64_t quiet_since;	/* no mount change before this (CLOCK_MONOTONIC ns) */
};

struct uevent {
	const char *action, *devpath, *subsystem, *major, *minor, *devname;
	const char *devtype, *diskseq, *partn, *seqnum;
};

static void parse(char *buf, size_t len, struct uevent *u)
{
	char *p = buf, *end = buf + len;

	memset(u, 0, sizeof(*u));
	for (p += strnlen(p, end - p) + 1; p < end; p += strnlen(p, end - p) + 1) {
		char *eq = strchr(p, '=');

		if (!eq)
			continue;
		*eq = '\0';
#define KEY(k, field) if (!strcmp(p, k)) u->field = eq + 1
		KEY("ACTION", action);
		KEY("DEVPATH", devpath);
		KEY("SUBSYSTEM", subsystem);
		KEY("MAJOR", major);
		KEY("MINOR", minor);
		KEY("DEVNAME", devname);
		KEY("DEVTYPE", devtype);
		KEY("DISKSEQ", diskseq);
		KEY("PARTN", partn);
		KEY("SEQNUM", seqnum);
#undef KEY
	}
}

/* The parent disk of a partition: the second-last component of DEVPATH. */
static void parent_of(const char *devpath, char *out, size_t size)
{
	const char *last = strrchr(devpath, '/'), *prev = last;

	out[0] = '\0';
	if (!last || last == devpath)
		return;
	do
		prev--;
	while (prev > devpath && *prev != '/');
	if (*prev == '/')
		snprintf(out, size, "%.*s", (int)(last - prev - 1), prev + 1);
}

static void read_horizon(struct bm_uevents *u)
{
	char buf[32];
	ssize_t n;

	if (u->seqnum_fd < 0)
		return;
	n = pread(u->seqnum_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0) {
		u->horizon = UINT64_MAX;	/* unknown: claim nothing */
		return;
	}
	buf[n] = '\0';
	u->horizon = strtoull(buf, NULL, 10);
}

static int write_marker(struct bm_uevents *u, struct bm_marker *m)
{
	int ret = bm_marker_emit(m, u->mark, u->ctx);

	read_horizon(u);
	return ret;
}

/*
 * A loop device's detach sends its change uevents with the diskseq it had,
 * then changes it: the diskseq read on receipt, if another, is the one the
 * disk went on with (diskseq_now), changed before the marker; and its size
 * then (size_now: 0 for a detached loop device, which does no I/O), if the
 * diskseq read before and after it is the same.
 */
static void mark_diskseq_now(struct bm_marker *m, const char *dir, const char *diskseq)
{
	char now[32], size[32], again[32];

	bm_sysfs_read_line(dir, "diskseq", now, sizeof(now));
	if (!now[0] || strtoull(now, NULL, 10) <= strtoull(diskseq, NULL, 10))
		return;
	bm_sysfs_read_line(dir, "size", size, sizeof(size));
	bm_sysfs_read_line(dir, "diskseq", again, sizeof(again));
	bm_marker_add(m, "diskseq_now", now);
	if (size[0] && !strcmp(now, again))
		bm_marker_add(m, "size_now", size);
}

/* "fresh=1": the uevent was sent after the listener's previous marker. */
static void mark_fresh(struct bm_uevents *u, struct bm_marker *m, const struct uevent *ev)
{
	bm_marker_add(m, "seqnum", ev->seqnum);
	bm_marker_add(m, "fresh", ev->seqnum && u->horizon != UINT64_MAX &&
		      strtoull(ev->seqnum, NULL, 10) > u->horizon ? "1" : "0");
}

/*
 * An NVMe controller added or removed: the paths through it (hidden disks,
 * which send no uevents) come after its add and are gone by its removal.
 */
static void handle_controller(struct bm_uevents *u, const struct uevent *ev)
{
	struct bm_marker m;

	if (!ev->action || !ev->devname || strncmp(ev->devname, "nvme", 4) ||
	    (strcmp(ev->action, "add") && strcmp(ev->action, "remove")))
		return;
	bm_marker_begin(&m, "controller");
	bm_marker_add(&m, "action", ev->action);
	bm_marker_add(&m, "name", ev->devname);
	mark_fresh(u, &m, ev);
	if (write_marker(u, &m) == 0)
		atomic_fetch_add(&u->count, 1);
}

static void handle(struct bm_uevents *u, char *buf, size_t len)
{
	struct bm_marker m;
	struct uevent ev;
	char parent[256] = "", dev[32];
	bool partition;

	parse(buf, len, &ev);
	if (ev.subsystem && !strcmp(ev.subsystem, "nvme")) {
		handle_controller(u, &ev);
		return;
	}
	if (!ev.subsystem || strcmp(ev.subsystem, "block") || !ev.action || !ev.major ||
	    !ev.minor || !ev.devname)
		return;
	if (strcmp(ev.action, "add") && strcmp(ev.action, "remove") && strcmp(ev.action, "change"))
		return;
	partition = ev.devtype && !strcmp(ev.devtype, "partition");
	if (partition && ev.devpath)
		parent_of(ev.devpath, parent, sizeof(parent));
	snprintf(dev, sizeof(dev), "%s:%s", ev.major, ev.minor);

	bm_marker_begin(&m, "uevent");
	bm_marker_add(&m, "action", ev.action);
	bm_marker_add(&m, "dev", dev);
	bm_marker_add(&m, "name", ev.devname);
	bm_marker_add(&m, "kind", partition ? "partition" : "disk");
	bm_marker_add(&m, "parent", parent);
	bm_marker_add(&m, "partn", ev.partn);
	bm_marker_add(&m, "diskseq", ev.diskseq);
	mark_fresh(u, &m, &ev);
	/* What the event does not carry, read while the device is there. */
	if (strcmp(ev.action, "remove")) {
		struct bm_blockdev d = { 0 };
		char dir[64];

		snprintf(dir, sizeof(dir), "/sys/dev/block/%s", dev);
		bm_sysfs_labels(dir, partition, ev.diskseq ? strtoull(ev.diskseq, NULL, 10) : 0,
				&d);
		bm_sysfs_mark_labels(&m, &d);
		if (!partition && ev.diskseq)
			mark_diskseq_now(&m, dir, ev.diskseq);
	}
	if (write_marker(u, &m) == 0)
		atomic_fetch_add(&u->count, 1);
}

/* Receive and handle every queued uevent; false on a fatal socket error. */
static bool receive_all(struct bm_uevents *u)
{
	char buf[8192 + 1];

	for (;;) {
		struct sockaddr_nl from;
		struct iovec iov = { buf, sizeof(buf) - 1 };
		struct msghdr msg = { .msg_name = &from, .msg_namelen = sizeof(from),
				      .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(u->sock, &msg, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS)
			continue;	/* overflowed: later ones still count */
		if (n < 0)
			return errno == EAGAIN;
		/* Only the kernel (port 0) sends to this group. */
		if (from.nl_pid != 0 || (msg.msg_flags & MSG_TRUNC))
			continue;
		buf[n] = '\0';
		handle(u, buf, n);
	}
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Mark what the mount table changed, if the kernel says it did (POLLPRI).
 * A change is known to come after the last check that found none: this
 * one's start, if it finds none, is the next one's bound.
 */
static bool check_mounts(struct bm_uevents *u)
{
	struct pollfd p = { .fd = u->mounts ? bm_mounts_fd(u->mounts) : -1, .events = POLLPRI };
	uint64_t start = mono_ns();
	bool changed = false;

	if (u->mounts && poll(&p, 1, 0) > 0 && (p.revents & (POLLPRI | POLLERR))) {
		changed = bm_mounts_scan(u->mounts, u->quiet_since, u->mark, u->ctx) > 0;
		read_horizon(u);
	}
	u->quiet_since = start;
	return changed;
}

static void *listener_main(void *arg)
{
	struct bm_uevents *u = arg;
	struct pollfd fds[3] = {
		{ .fd = u->sock, .events = POLLIN },
		{ .fd = u->stop_fd, .events = POLLIN },
		{ .fd = u->mounts ? bm_mounts_fd(u->mounts) : -1, .events = POLLPRI },
	};
	int64_t last_uevent = -BUSY_FOR_MS;
	struct bm_marker m;

	for (;;) {
		int busy, n;
		uint64_t before;

		if (check_mounts(u))
			last_uevent = bm_now_ms();
		busy = bm_now_ms() - last_uevent < BUSY_FOR_MS;
		n = poll(fds, 3, busy ? IDLE_BUSY_MS : IDLE_QUIET_MS);
		before = bm_uevents_count(u);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && (fds[2].revents & (POLLPRI | POLLERR))) {
			/* Changed after the check before this poll began. */
			if (bm_mounts_scan(u->mounts, u->quiet_since, u->mark, u->ctx) > 0)
				last_uevent = bm_now_ms();
			read_horizon(u);
			if (!(fds[0].revents & POLLIN) && !(fds[1].revents & POLLIN))
				continue;
		}
		if (n == 0) {
			bm_marker_begin(&m, BM_MARKER_IDLE);
			write_marker(u, &m);
			continue;
		}
		if (!receive_all(u) || (fds[1].revents & POLLIN))
			break;
		if (bm_uevents_count(u) != before)
			last_uevent = bm_now_ms();
	}
	return NULL;
}

struct bm_uevents *bm_uevents_start(bm_mark_fn mark, void *ctx)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = KERNEL_GROUP };
	struct bm_uevents *u;
	struct bm_marker m;
	int size = RCVBUF;

	u = calloc(1, sizeof(*u));
	if (!u) {
		bm_error_errno("cannot listen to uevents");
		return NULL;
	}
	u->mark = mark;
	u->ctx = ctx;
	u->stop_fd = -1;
	u->seqnum_fd = open("/sys/kernel/uevent_seqnum", O_RDONLY | O_CLOEXEC);
	u->sock = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (u->sock < 0) {
		bm_error_errno("cannot open a uevent socket");
		goto fail;
	}
	/* A burst of hotplug must not overflow the socket (root may force). */
	if (setsockopt(u->sock, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(u->sock, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(u->sock, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		bm_error_errno("cannot bind the uevent socket");
		goto fail;
	}
	u->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (u->stop_fd < 0) {
		bm_error_errno("cannot listen to uevents");
		goto fail;
	}
	bm_marker_begin(&m, "uevent-listen");
	if (write_marker(u, &m) < 0)
		goto fail;
	/* The mounts present now; then their changes, beside the uevents. */
	u->mounts = bm_mounts_open();
	if (u->mounts) {
		u->quiet_since = mono_ns();
		if (bm_mounts_scan(u->mounts, 0, mark, ctx) < 0) {
			bm_mounts_close(u->mounts);
			u->mounts = NULL;
		}
	}
	errno = pthread_create(&u->thread, NULL, listener_main, u);
	if (errno) {
		bm_error_errno("cannot start the uevent thread");
		goto fail;
	}
	return u;
fail:
	bm_mounts_close(u->mounts);
	if (u->sock >= 0)
		close(u->sock);
	if (u->stop_fd >= 0)
		close(u->stop_fd);
	if (u->seqnum_fd >= 0)
		close(u->seqnum_fd);
	free(u);
	return NULL;
}

uint64_t bm_uevents_stop(struct bm_uevents *u)
{
	uint64_t count;

	if (!u)
		return 0;
	eventfd_write(u->stop_fd, 1);
	pthread_join(u->thread, NULL);
	count = bm_uevents_count(u);
	check_mounts(u);
	close(u->sock);
	close(u->stop_fd);
	if (u->seqnum_fd >= 0)
		close(u->seqnum_fd);
	bm_mounts_close(u->mounts);
	free(u);
	return count;
}

uint64_t bm_uevents_count(const struct bm_uevents *u)
{
	return u ? atomic_load(&((struct bm_uevents *)u)->count) : 0;
}
