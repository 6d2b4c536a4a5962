// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's schema, written down once: per view, its keys with their
 * types, units and meanings. CSV headers, JSON keys and --schema come from
 * these tables; blkmap-report(1) describes the same (t0430 checks both).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/report/schema.h"

#define INT(k, u, m)		{ k, BM_KEY_INT, u, m, 0 }
#define NUM(k, u, d, m)		{ k, BM_KEY_NUM, u, m, d }
#define STR(k, m)		{ k, BM_KEY_STR, "", m, 0 }
#define BOOL(k, m)		{ k, BM_KEY_BOOL, "", m, 0 }

/* Keys every per-incarnation view shares, with one meaning in all. */
#define INCARNATION \
	STR("incarnation", "the incarnation: MAJ:MIN#N, the Nth (from 1, in time order) that " \
	    "carried the device number in the recording; the same in every view")
#define FROM_NS \
	INT("from_ns", "ns", "when the incarnation was added, on the trace clock: the end of " \
	    "the add's window (it existed by then); null if before the recording")
#define TO_NS \
	INT("to_ns", "ns", "when it was removed: the end of the removal's window (it was gone " \
	    "by then); null if still present at the end")
#define NAMES(p, who) \
	STR(p "lv", who ": the LVM volume, VG/LV (of a layer: the volume it is a layer of), " \
	    "under the incarnation's first dm name"), \
	STR(p "lv_layer", who ": the LVM layer of lv it is (real, cow, tpool, ...)"), \
	STR(p "backing_file", who ": a loop device's file (of this attachment)"), \
	STR(p "mounts", who ": the mount points it carried in its life, separated by ';'")
#define QUOTE(x)	#x
#define QUOTED(x)	QUOTE(x)
#define FORMAT_VERSION \
	INT("format_version", "", "the version of this schema (" QUOTED(BM_REPORT_FORMAT) \
	    "): keys are only added within a version")

#define LATENCY(p) \
	INT(p "_count", "", #p " latencies measured (0: none; the other " #p " keys null)"), \
	NUM(p "_avg_us", "us", 3, "mean " #p " latency"), \
	NUM(p "_p50_us", "us", 3, "median " #p " latency (log2-linear histogram)"), \
	NUM(p "_p90_us", "us", 3, "90th percentile " #p " latency"), \
	NUM(p "_p99_us", "us", 3, "99th percentile " #p " latency"), \
	NUM(p "_p999_us", "us", 3, "99.9th percentile " #p " latency"), \
	NUM(p "_max_us", "us", 3, "longest " #p " latency")

/* The cgroup of cgroup v2 charged with the I/O, @which. */
#define CGROUP(which) \
	STR("cgroup", "the cgroup (of cgroup v2) " which ", its path from the " \
	    "hierarchy's root as it was then (a container's, docker-ID.scope, libpod-ID.scope, " \
	    "cri-containerd-ID.scope, a kubepods pod's podUID, with its id cut to 12 " \
	    "characters); null: not known"), \
	STR("cgroup_incarnation", "the cgroup: its path, then #N, the Nth cgroup made on that " \
	    "path in the recording (one removed and made again is the next); null as cgroup"), \
	STR("cgroup_basis", "how the cgroup was told: task (the cgroup the queuing task was " \
	    "in at its queue, which the kernel charges direct and synchronous I/O to), " \
	    "writeback (a flusher writing an inode back: the cgroup the kernel charges that " \
	    "to, its writeback_single_inode_start's cgroup_ino), task+writeback (some of " \
	    "each), guess (events were lost since the task's last known move, or during a " \
	    "writeback) or unknown (the task was not seen, or the recording has no cgroup " \
	    "records)")

/* One operation's tail (null without any of its latencies). */
#define OP_LATENCY(o, p, who) \
	NUM(o p "_p99_us", "us", 3, "99th percentile of the " who " " p " latency"), \
	NUM(o p "_p999_us", "us", 3, "99.9th percentile of the " who " " p " latency"), \
	NUM(o p "_max_us", "us", 3, "longest of the " who " " p " latency")

/*
 * iostat -x's figures, in --disks (over an incarnation's life in the
 * window), blkmap top's intervals and --interval's: one key, one meaning.
 */
#define IOSTAT \
	NUM("r_s", "1/s", 3, "reads completed per second (iostat's r/s)"), \
	NUM("w_s", "1/s", 3, "writes completed per second (w/s)"), \
	NUM("rkb_s", "KiB/s", 1, "KiB read per second (rkB/s)"), \
	NUM("wkb_s", "KiB/s", 1, "KiB written per second (wkB/s)"), \
	NUM("rrqm_s", "1/s", 1, "reads merged per second (rrqm/s): bios merged into a request " \
	    "and requests into another, as the kernel counts them (diskstats field 2); null " \
	    "unless recorded with --events=phases"), \
	NUM("wrqm_s", "1/s", 1, "writes merged per second (wrqm/s; field 6): null as rrqm_s"), \
	INT("rmerges", "", "reads merged (diskstats field 2; rrqm_s's): null as rrqm_s"), \
	INT("wmerges", "", "writes merged (field 6; wrqm_s's): null as rrqm_s"), \
	NUM("r_await_ms", "ms", 3, "mean Q2C of the reads completed, from queueing to " \
	    "completion (iostat's r_await; null: none)"), \
	NUM("w_await_ms", "ms", 3, "mean Q2C of the writes completed (w_await; null: none)"), \
	NUM("r_d2c_ms", "ms", 3, "mean D2C of the reads completed, from issue to the device " \
	    "to completion (null: none issued, as on a bio-based device)"), \
	NUM("w_d2c_ms", "ms", 3, "mean D2C of the writes completed (null: none issued)"), \
	NUM("areq_kb", "KiB", 1, "KiB per read or write (areq-sz)"), \
	NUM("aqu_sz", "", 3, "the kernel's time in queue (diskstats field 11) over the time " \
	    "(aqu-sz)"), \
	NUM("queue_depth", "", 3, "mean number of I/Os issued to the device and not completed"), \
	NUM("util_pct", "%", 2, "time with at least one I/O in flight (%util; diskstats " \
	    "field 10)"), \
	INT("flushes", "", "flushes completed (diskstats field 16)"), \
	NUM("f_s", "1/s", 3, "flushes completed per second (f/s)"), \
	NUM("f_await_ms", "ms", 3, "mean time of a flush the block layer sent, from its issue " \
	    "(f_await; field 17): null without one, and on bio-based devices"), \
	NUM("busy_ns", "ns", 0, "time with at least one I/O in flight (util_pct's)"), \
	NUM("queue_ns", "ns", 0, "the kernel's time in queue (aqu_sz's)")

/* --disks' figures after seconds: blkmap diff has each of them thrice. */
#define DISKS_FIGURES \
	IOSTAT, \
	LATENCY("q2c"), \
	LATENCY("d2c"), \
	OP_LATENCY("r_", "q2c", "reads'"), \
	OP_LATENCY("w_", "q2c", "writes'"), \
	OP_LATENCY("r_", "d2c", "reads'"), \
	OP_LATENCY("w_", "d2c", "writes'")

static const struct bm_key events_keys[] = {
	INT("ts_ns", "ns", "the event's time on the trace clock"),
	INT("cpu", "", "the CPU that recorded it"),
	INT("pid", "", "the thread that was running (0: idle or an interrupt)"),
	STR("comm", "the command of pid, as the recording's cmdlines have it"),
	STR("event", "the event's name (block_rq_issue, print, ...)"),
	STR("dev", "block events: the device number, MAJ:MIN"),
	STR("name", "block events: the kernel name the device had then (empty if unknown)"),
	STR("rwbs", "block events: the operation flags (R, W, D, F, S, M, ...)"),
	INT("sector", "sectors", "block events: the first sector (null when the event has none)"),
	INT("nr_sector", "sectors", "block events: the number of sectors"),
	INT("bytes", "bytes", "block_rq_issue, block_rq_insert: the request's bytes"),
	INT("error", "", "completions: the error (0: success; a negative errno)"),
	STR("old_dev", "block_bio_remap: the device the bio came from"),
	STR("old_name", "block_bio_remap: its name then"),
	INT("old_sector", "sectors", "block_bio_remap, block_bio_split: the sector it came from"),
	STR("name_basis", "how name was decided: only, parent, guess or unknown"),
	STR("old_name_basis", "how old_name was decided"),
	STR("dm", "the device-mapper name of dev then (null for other devices)"),
	STR("old_dm", "the device-mapper name of old_dev then"),
	STR("details", "other events: their fields as the kernel's print format has them"),
	STR("incarnation", "block events: the incarnation of dev (as --map's), null if none fits"),
	STR("old_incarnation", "block_bio_remap: the incarnation of old_dev"),
	FROM_NS,
	TO_NS,
	STR("lv", "LVM devices: the volume dev was then, VG/LV (of a layer: the volume it is "
	    "a layer of)"),
	STR("old_lv", "block_bio_remap: the volume old_dev was then"),
	STR("lv_layer", "LVM devices: the layer of lv that dev was then (real, cow, tpool, ...); "
	    "null for the volume itself"),
	STR("old_lv_layer", "block_bio_remap: the layer of old_lv that old_dev was then"),
	STR("backing_file", "loop devices: the file dev was attached to"),
	STR("old_backing_file", "block_bio_remap: the file old_dev was attached to"),
	STR("mount", "the mount points of dev's file system then (within a mount's or "
	    "unmount's window: it may have been), separated by ';'"),
	STR("old_mount", "block_bio_remap: the mount points of old_dev then"),
	STR("cgroup", "the cgroup (of cgroup v2) pid was in at the event, shown as --cgroups "
	    "shows it: on block_bio_queue, the cgroup the kernel charges a direct or "
	    "synchronous bio to; on a completion, the task the interrupt came in, not the "
	    "I/O's; null: not known (a task not seen, a recording without cgroup records)"),
	FORMAT_VERSION,
};

static const struct bm_key map_keys[] = {
	STR("dev", "the device number, MAJ:MIN"),
	STR("name", "the kernel name"),
	STR("kind", "disk or partition"),
	FROM_NS,
	TO_NS,
	STR("from_source", "the sources that bounded the add (uevent, sysfs, kprobe, ...)"),
	STR("to_source", "the sources that bounded the removal (null if still present)"),
	INT("from_lo_ns", "ns", "the add happened within from_lo_ns..from_hi_ns"),
	INT("from_hi_ns", "ns", "the end of the add's window (= from_ns)"),
	INT("to_lo_ns", "ns", "the removal happened within to_lo_ns..to_hi_ns"),
	INT("to_hi_ns", "ns", "the end of the removal's window (= to_ns)"),
	STR("parent", "partitions: the disk's name"),
	INT("diskseq", "", "the kernel's disk sequence number (null if not known)"),
	STR("dm", "device-mapper devices: the first dm name"),
	BOOL("events_lost", "a gap in the recording lies within its life: a change may be unseen"),
	STR("serial", "disks: the serial number (or WWID) it reports"),
	STR("via", "NVMe path disks: the controller, its transport and address"),
	INCARNATION,
	STR("dm_renames", "device-mapper renames: NAME@LO..HI (ns window of the rename), "
	    "separated by ';'"),
	STR("vg", "LVM devices (dm UUID LVM-...): the volume group, from the first dm name"),
	STR("lv", "LVM devices: the logical volume (dm_renames says when it was renamed)"),
	STR("lv_layer", "LVM devices: the layer of lv the device is (real, cow, tpool, ...); "
	    "null for the volume itself"),
	STR("dm_uuid", "device-mapper devices: the UUID"),
	STR("backing_file", "loop devices: the file of this attachment (each attachment is an "
	    "incarnation: attaching and detaching change the diskseq)"),
	STR("wwid", "disks: the world-wide name it reports (wwid, NVMe's wwid or eui)"),
	STR("model", "disks: the model it reports"),
	STR("firmware", "disks: the firmware revision it reports"),
	STR("mounts", "its file system's mounts: PATH@LO..HI/LO..HI, the windows in which it "
	    "was mounted and unmounted (empty: before, or after, the recording), separated "
	    "by ';'"),
	FORMAT_VERSION,
};

static const struct bm_key conflicts_keys[] = {
	INT("ts_ns", "ns", "when the sources disagreed"),
	STR("text", "what they said, as a sentence"),
	STR("dev", "the device number they disagreed on, MAJ:MIN (null: none in particular)"),
	INCARNATION,
	FROM_NS,
	TO_NS,
	FORMAT_VERSION,
};

static const struct bm_key disks_keys[] = {
	STR("name", "the kernel name (null: I/O no incarnation fits)"),
	STR("dev", "the device number, MAJ:MIN"),
	INT("reads", "", "read requests completed, counted as the kernel counts them (bios on "
	    "a bio-based device, basis bio): not --top's bios"),
	INT("writes", "", "write requests completed, as reads"),
	INT("read_bytes", "bytes", "bytes read"),
	INT("write_bytes", "bytes", "bytes written"),
	STR("kind", "disk or partition"),
	STR("parent", "partitions: the disk's name"),
	STR("basis", "how its I/O is seen: request, bio or remap"),
	FROM_NS,
	TO_NS,
	NUM("seconds", "s", 6, "its life within the report's window: what rates are over"),
	DISKS_FIGURES,
	INT("others", "", "requests completed without data (flushes, a driver's own)"),
	BOOL("events_lost", "its life overlaps a gap in the recording: figures may lack I/O"),
	INCARNATION,
	STR("dm", "device-mapper devices: the dm name"),
	INT("diskseq", "", "the kernel's disk sequence number (null if not known)"),
	STR("serial", "disks: the serial number it reports"),
	INT("window_from_ns", "ns", "the start of its life within the report's window"),
	INT("window_to_ns", "ns", "the end of its life within the report's window"),
	STR("wwid", "disks: the world-wide name it reports"),
	STR("model", "disks: the model it reports"),
	NAMES("", "the device"),
	STR("path_via", "NVMe path disks (nvmeXcYnZ): the controller, its transport and address; "
	    "--stack says how much of its head's I/O each path carried"),
	STR("head", "NVMe path disks: the head (nvmeXnZ) whose I/O it carried"),
	STR("head_incarnation", "the incarnation of head"),
	INT("head_reads", "", "reads of head that went through this path"),
	INT("head_writes", "", "writes of head that went through this path"),
	INT("head_read_bytes", "bytes", "bytes read from head through this path"),
	INT("head_write_bytes", "bytes", "bytes written to head through this path"),
	FORMAT_VERSION,
};

static const struct bm_key latency_keys[] = {
	STR("name", "the kernel name"),
	STR("dev", "the device number, MAJ:MIN"),
	STR("latency", "d2c (issue to completion) where requests are seen, else q2c"),
	INT("from_us", "us", "the bucket's lower bound"),
	INT("to_us", "us", "the bucket's upper bound"),
	INT("count", "", "latencies in the bucket"),
	STR("marks", "the percentiles in the bucket, of p50, p99 and p99.9, separated by "
	    "spaces (log2-linear histogram, within 3%); null for none"),
	INCARNATION,
	FROM_NS,
	TO_NS,
	FORMAT_VERSION,
};

static const struct bm_key top_keys[] = {
	STR("name", "the kernel name"),
	STR("dev", "the device number, MAJ:MIN"),
	INT("pid", "", "the process (at the top of a stack) that queued the I/O"),
	STR("comm", "its command"),
	INT("reads", "", "read bios queued (block_bio_queue, as biotop counts): not --disks' "
	    "requests, which merges and splits make fewer or more; the bytes agree"),
	INT("writes", "", "write bios queued, as reads"),
	INT("read_bytes", "bytes", "bytes read"),
	INT("write_bytes", "bytes", "bytes written"),
	INT("q2c_count", "", "Q2C latencies of its I/O measured on the incarnation (0: none; "
	    "the other q2c keys null)"),
	NUM("q2c_avg_us", "us", 3, "mean Q2C latency of its I/O, from queueing to completion"),
	NUM("q2c_p99_us", "us", 3, "99th percentile Q2C latency of its I/O"),
	INCARNATION,
	FROM_NS,
	TO_NS,
	STR("dm", "device-mapper devices: the dm name"),
	NAMES("", "the device"),
	CGROUP("the process was in when it queued the I/O (a row each it queued from)"),
	FORMAT_VERSION,
};

static const struct bm_key cgroups_keys[] = {
	CGROUP("whose tasks queued the I/O, as they were in at its queue"),
	STR("name", "the kernel name"),
	STR("dev", "the device number, MAJ:MIN"),
	INT("reads", "", "read bios queued by the cgroup's tasks and the pieces the block "
	    "layer split them into (block_bio_queue, block_split), as the kernel's io.stat "
	    "counts rios"),
	INT("writes", "", "write bios queued and their pieces, as reads (io.stat's wios)"),
	INT("read_bytes", "bytes", "bytes read (io.stat's rbytes)"),
	INT("write_bytes", "bytes", "bytes written (io.stat's wbytes)"),
	INT("q2c_count", "", "Q2C latencies of its I/O measured on the incarnation (0: none; "
	    "the other q2c keys null)"),
	NUM("q2c_avg_us", "us", 3, "mean Q2C latency of its I/O, from queueing to completion"),
	NUM("q2c_p99_us", "us", 3, "99th percentile Q2C latency of its I/O"),
	INT("d2c_count", "", "D2C latencies of its requests measured on the incarnation (0: "
	    "none, as on a bio-based device; the other d2c keys null)"),
	NUM("d2c_avg_us", "us", 3, "mean D2C latency of its requests, from issue to completion"),
	NUM("d2c_p99_us", "us", 3, "99th percentile D2C latency of its requests"),
	INCARNATION,
	FROM_NS,
	TO_NS,
	STR("dm", "device-mapper devices: the dm name"),
	INT("since_ns", "ns", "the start of the window the row counts (--since, else the "
	    "recording's start; blkmap top --cgroups: its interval's), on the trace clock"),
	INT("until_ns", "ns", "the end of that window (--until, else the recording's end)"),
	FORMAT_VERSION,
};

static const struct bm_key slowest_keys[] = {
	INT("ts_ns", "ns", "its completion, on the trace clock"),
	STR("name", "the kernel name of the device it completed on"),
	STR("dev", "the device number, MAJ:MIN"),
	INCARNATION,
	STR("op", "read, write or discard"),
	INT("sector", "sectors", "where it completed"),
	INT("bytes", "bytes", "its size (the bio's when queued, else the completion's)"),
	INT("pid", "", "the process (at the top of a stack) that queued it"),
	STR("comm", "its command"),
	NUM("q2c_us", "us", 3, "from its queue on the device to its completion: what the rows "
	    "are ranked by (by d2c_us where it was not queued there); null if not queued there"),
	NUM("d2c_us", "us", 3, "from its request's issue (block_rq_issue) to its completion; "
	    "null for a bio-based device's"),
	NUM("q2g_us", "us", 3, "from its queue to its request's allocation (block_getrq)"),
	NUM("g2i_us", "us", 3, "from its request's allocation to its insertion (block_rq_insert)"),
	NUM("i2d_us", "us", 3, "from its insertion to its issue"),
	INT("inflight", "", "the device's other requests issued before its issue and not yet "
	    "completed then (those issued before the recording are not known)"),
	INT("inflight_bytes", "bytes", "their bytes"),
	STR("inflight_by", "the processes that queued those, most first, three at most: "
	    "comm(pid):count;... (others:count: those of processes past the eighth at once)"),
	INT("queued_behind", "", "the device's requests issued between its queue and its issue"),
	STR("top_device", "I/O that came down a stack: the device it was submitted to"),
	FROM_NS,
	TO_NS,
	FORMAT_VERSION,
};

static const struct bm_key stack_keys[] = {
	STR("name", "the lower device's kernel name"),
	STR("dev", "its device number"),
	STR("via", "the device the I/O was submitted to (dm, md, a partition)"),
	STR("via_dev", "its device number"),
	STR("via_dm", "its device-mapper name"),
	INT("reads", "", "reads that came down from via"),
	INT("writes", "", "writes that came down from via"),
	INT("read_bytes", "bytes", "bytes read"),
	INT("write_bytes", "bytes", "bytes written"),
	INCARNATION,
	FROM_NS,
	TO_NS,
	STR("via_incarnation", "the incarnation of via"),
	NAMES("", "the lower device"),
	NAMES("via_", "via"),
	STR("path_via", "an NVMe path disk below its head: the controller, its transport and "
	    "address"),
	FORMAT_VERSION,
};

#define PHASE(p, what) \
	INT(p "_count", "", what ", counted per bio (0: none; the other " p " keys null)"), \
	NUM(p "_min_us", "us", 3, "shortest " p), \
	NUM(p "_avg_us", "us", 3, "mean " p), \
	NUM(p "_p50_us", "us", 3, "median " p " (log2-linear histogram)"), \
	NUM(p "_p99_us", "us", 3, "99th percentile " p), \
	NUM(p "_max_us", "us", 3, "longest " p)
#define WHOLE(x)	"on the all row, null on the others: " x
#define SEEKS(p, what) \
	INT(p "_seeks", "", WHOLE("seek distances measured between consecutive " what)), \
	NUM(p "_seek_mean", "sectors", 1, WHOLE("their mean, as btt measures them")), \
	INT(p "_seek_median", "sectors", WHOLE("their median")), \
	INT(p "_seek_mode", "sectors", WHOLE("the most frequent distance")), \
	NUM(p "_sequential_pct", "%", 2, WHOLE("seeks of distance 0 (touching or overlapping)"))

static const struct bm_key phases_keys[] = {
	STR("name", "the kernel name"),
	STR("dm", "device-mapper devices: the dm name"),
	STR("dev", "the device number, MAJ:MIN"),
	STR("op", "the operation the row is for: read, write, discard or all"),
	STR("basis", "request (request-based), bio (bio-based: dm, md, zram) or remap"),
	STR("phases", "the phases the incarnation has (Q2Q,Q2G,G2I,Q2M,I2D,M2D,D2C,Q2C,Q2A)"),
	PHASE("q2q", "Q2Q: from one bio queued to the next"),
	PHASE("q2g", "Q2G: from a bio queued to a request made for it"),
	PHASE("g2i", "G2I: from the request made to its insertion"),
	PHASE("q2m", "Q2M: from a bio queued to its merge into a request"),
	PHASE("i2d", "I2D: from a request inserted to its issue"),
	PHASE("m2d", "M2D: from a bio merged to its request's issue"),
	PHASE("d2c", "D2C: from issue to completion"),
	PHASE("q2c", "Q2C: from a bio queued to its completion"),
	PHASE("q2a", "Q2A: from a bio queued on a bio-based device to its remap below"),
	NUM("q2g_pct", "%", 4, "Q2G's share of Q2C: the sum of its times over Q2C's"),
	NUM("g2i_pct", "%", 4, "G2I's share of Q2C"),
	NUM("q2m_pct", "%", 4, "Q2M's share of Q2C"),
	NUM("i2d_pct", "%", 4, "I2D's share of Q2C"),
	NUM("m2d_pct", "%", 4, "M2D's share of Q2C"),
	NUM("d2c_pct", "%", 4, "D2C's share of Q2C"),
	INT("queued", "", WHOLE("bios queued with data (btt's #Q)")),
	INT("issued", "", WHOLE("requests issued with data (btt's #D)")),
	NUM("bios_per_request", "", 3, WHOLE("queued over issued")),
	INT("merges", "", WHOLE("bios merged into a request (back or front)")),
	INT("rq_merges", "", WHOLE("requests merged into another")),
	INT("requeues", "", WHOLE("requests put back to be issued again")),
	INT("request_sectors_min", "sectors", WHOLE("the smallest completion (btt's BLKmin)")),
	NUM("request_sectors_avg", "sectors", 1, WHOLE("the mean completion (BLKavg)")),
	INT("request_sectors_max", "sectors", WHOLE("the largest completion (BLKmax)")),
	INT("request_sectors_total", "sectors", WHOLE("all completions (btt's Total)")),
	STR("request_kib", WHOLE("requests issued by size, KIB:COUNT per power of two of KiB")),
	INT("plugs", "", WHOLE("plugs started by tasks whose last request was here")),
	INT("unplugs", "", WHOLE("their flushes")),
	NUM("ios_per_unplug", "", 2, WHOLE("requests an unplug sent")),
	NUM("active_at_q_avg", "", 3, WHOLE("requests neither issued nor merged at each Q, mean")),
	SEEKS("q2q", "queued bios"),
	SEEKS("d2d", "issued requests"),
	BOOL("events_lost", "its life overlaps a gap in the recording: figures may lack I/O"),
	INCARNATION,
	FROM_NS,
	TO_NS,
	FORMAT_VERSION,
};

static const struct bm_key interval_keys[] = {
	INT("time_ns", "ns", "the end of the interval, on the trace clock"),
	NUM("interval_s", "s", 3, "the interval's length"),
	STR("name", "the kernel name"),
	STR("dm", "device-mapper devices: the dm name"),
	STR("dev", "the device number, MAJ:MIN"),
	STR("state", "new, gone, new+gone or empty: its life began or ended in the interval"),
	INT("reads", "", "reads completed, counted as the kernel counts them"),
	INT("writes", "", "writes completed"),
	IOSTAT,
	NUM("q2c_p50_us", "us", 3, "median Q2C latency"),
	NUM("q2c_p99_us", "us", 3, "99th percentile Q2C latency"),
	NUM("q2c_max_us", "us", 3, "longest Q2C latency"),
	NUM("d2c_p50_us", "us", 3, "median D2C latency"),
	NUM("d2c_p99_us", "us", 3, "99th percentile D2C latency"),
	NUM("d2c_max_us", "us", 3, "longest D2C latency"),
	NUM("q2c_p999_us", "us", 3, "99.9th percentile Q2C latency"),
	NUM("d2c_p999_us", "us", 3, "99.9th percentile D2C latency"),
	OP_LATENCY("r_", "q2c", "reads'"),
	OP_LATENCY("w_", "q2c", "writes'"),
	OP_LATENCY("r_", "d2c", "reads'"),
	OP_LATENCY("w_", "d2c", "writes'"),
	INCARNATION,
	FROM_NS,
	TO_NS,
	INT("read_bytes", "bytes", "bytes read"),
	INT("write_bytes", "bytes", "bytes written"),
	INT("others", "", "requests completed without data (flushes, a driver's own)"),
	NUM("seconds", "s", 6, "the part of the interval within the incarnation's life: what "
	    "rates are over"),
	INT("window_from_ns", "ns", "the start of that part"),
	INT("window_to_ns", "ns", "its end"),
	NAMES("", "the device"),
	BOOL("events_lost", "a gap in the recording (events the kernel lost, a damaged page, a "
	     "file cut short) overlaps the interval: its figures may lack I/O"),
	FORMAT_VERSION,
};

/*
 * blkmap diff: a row a pair of incarnations, one of recording A (or of the
 * runs pooled as A) and one of B, or one alone. Each --disks figure thrice:
 * A's, B's and the change; INT and NUM are taken again for that, over the
 * same macros as disks_keys, so that every figure is there.
 */
#define PAIR(k, m) \
	STR(k "_a", "A's incarnation: " m), \
	STR(k "_b", "B's incarnation: " m)
#define CHANGE(k) \
	{ k "_change_pct", BM_KEY_NUM, "%", "(" k "_b - " k "_a) / " k "_a, in percent (null " \
	  "where either is null, or " k "_a is 0)", 1 }
#undef INT
#undef NUM
#define INT(k, u, m) \
	{ k "_a", BM_KEY_INT, u, "A: " m, 0 }, { k "_b", BM_KEY_INT, u, "B: " m, 0 }, CHANGE(k)
#define NUM(k, u, d, m) \
	{ k "_a", BM_KEY_NUM, u, "A: " m, d }, { k "_b", BM_KEY_NUM, u, "B: " m, d }, CHANGE(k)
#define SPREAD(k, u, what) \
	{ k "_min_a", BM_KEY_NUM, u, "A's runs: the least of their " what, 3 }, \
	{ k "_max_a", BM_KEY_NUM, u, "A's runs: the most of their " what, 3 }, \
	{ k "_min_b", BM_KEY_NUM, u, "B's runs: the least of their " what, 3 }, \
	{ k "_max_b", BM_KEY_NUM, u, "B's runs: the most of their " what, 3 }

static const struct bm_key diff_keys[] = {
	{ "match", BM_KEY_STR, "", "how the pair was made, by the strongest identity both "
	  "carry: serial, wwid, lv (VG/LV), dm (dm UUID, or dm name), backing_file, mount, name "
	  "(the kernel name), or pair (--pair); null for an incarnation of one side alone", 0 },
	{ "side", BM_KEY_STR, "", "both, a (only in A) or b (only in B)", 0 },
	{ "identity", BM_KEY_STR, "", "what the pair shares: the serial, WWID, VG/LV, dm UUID "
	  "or name, file, mount points or name that match says", 0 },
	PAIR("name", "the kernel name"),
	PAIR("incarnation", "MAJ:MIN#N, as --disks' incarnation in its recording"),
	PAIR("dev", "the device number, MAJ:MIN"),
	PAIR("kind", "disk or partition"),
	PAIR("serial", "the serial number it reports"),
	PAIR("wwid", "the world-wide name it reports"),
	PAIR("model", "the model it reports"),
	PAIR("lv", "the LVM volume, VG/LV"),
	PAIR("dm", "the device-mapper name"),
	PAIR("dm_uuid", "the device-mapper UUID"),
	PAIR("backing_file", "a loop device's file"),
	PAIR("mounts", "the mount points it carried, separated by ';'"),
	{ "runs_a", BM_KEY_INT, "", "the recordings of A the incarnation was in (its figures are "
	  "theirs pooled: counts summed, rates over the summed time, latencies together)", 0 },
	{ "runs_b", BM_KEY_INT, "", "the recordings of B it was in", 0 },
	INT("reads", "", "read requests completed, as --disks' reads"),
	INT("writes", "", "write requests completed"),
	INT("read_bytes", "bytes", "bytes read"),
	INT("write_bytes", "bytes", "bytes written"),
	NUM("seconds", "s", 6, "its life within the report's window (summed over the runs)"),
	DISKS_FIGURES,
	INT("others", "", "requests completed without data"),
	{ "q2c_p_value", BM_KEY_NUM, "", "two-sided p-value of a Mann-Whitney U test (normal "
	  "approximation, corrected for ties) that A's and B's per-I/O Q2C come from one "
	  "distribution, each I/O in a log-linear bucket within 3% of its latency; with three "
	  "runs or more in all, its variance widened by the runs' own spread (the between-run "
	  "mean square of the ranks over a rank's variance); small: the Q2C changed beyond "
	  "noise (3 significant digits: 1.2e-30)", -3 },
	{ "d2c_p_value", BM_KEY_NUM, "", "the same of the per-I/O D2C", -3 },
	{ "q2c_changed", BM_KEY_BOOL, "", "q2c_p_value below 0.01 and, with several runs a side, "
	  "the runs' Q2C medians of A and of B apart (no overlap of their ranges): what text "
	  "marks with '*'", 0 },
	{ "d2c_changed", BM_KEY_BOOL, "", "the same of D2C", 0 },
	SPREAD("q2c_p50_us", "us", "Q2C medians (the across-run spread; one run: its own)"),
	SPREAD("d2c_p50_us", "us", "D2C medians"),
	SPREAD("r_s", "1/s", "reads per second"),
	SPREAD("w_s", "1/s", "writes per second"),
	{ "events_lost_a", BM_KEY_BOOL, "", "A's figures may lack I/O (a gap in a recording)", 0 },
	{ "events_lost_b", BM_KEY_BOOL, "", "B's figures may lack I/O", 0 },
	{ "format_version", BM_KEY_INT, "", "the version of this schema (" QUOTED(BM_REPORT_FORMAT)
	  "): keys are only added within a version", 0 },
};

#define NKEYS(keys)	(sizeof(keys) / sizeof(keys[0]))
/* A table of more keys than a bm_row holds (BM_ROW_KEYS) does not compile. */
#define SCHEMA(name, keys) \
	{ name, keys, NKEYS(keys) + 0 * sizeof(char[NKEYS(keys) <= BM_ROW_KEYS ? 1 : -1]) }

static const struct bm_schema schemas[] = {
	SCHEMA("events", events_keys),
	SCHEMA("map", map_keys),
	SCHEMA("conflicts", conflicts_keys),
	SCHEMA("disks", disks_keys),
	SCHEMA("latency", latency_keys),
	SCHEMA("top", top_keys),
	SCHEMA("stack", stack_keys),
	SCHEMA("slowest", slowest_keys),
	SCHEMA("phases", phases_keys),
	SCHEMA("interval", interval_keys),
	SCHEMA("cgroups", cgroups_keys),
	SCHEMA("diff", diff_keys),
};

#define NSCHEMAS (sizeof(schemas) / sizeof(schemas[0]))

size_t bm_schemas(const struct bm_schema *const **list)
{
	/* Filled from schemas[], so that a view added there is listed too. */
	static const struct bm_schema *schema_list[NSCHEMAS];
	size_t i;

	for (i = 0; i < NSCHEMAS; i++)
		schema_list[i] = &schemas[i];
	*list = schema_list;
	return NSCHEMAS;
}

const struct bm_schema *bm_schema_find(const char *view)
{
	size_t i;

	for (i = 0; i < NSCHEMAS; i++)
		if (!strcmp(schemas[i].view, view))
			return &schemas[i];
	return NULL;
}

int bm_schema_index(const struct bm_schema *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->nkeys; i++)
		if (!strcmp(s->keys[i].key, key))
			return i;
	return -1;
}

const char *bm_key_type_name(enum bm_key_type type)
{
	static const char *const names[] = { "integer", "number", "string", "boolean" };

	return names[type];
}

static void print_view(FILE *out, const struct bm_schema *s)
{
	size_t i;

	for (i = 0; i < s->nkeys; i++) {
		const struct bm_key *k = &s->keys[i];

		fprintf(out, "{\"view\":\"%s\",\"key\":\"%s\",\"type\":\"%s\",\"unit\":", s->view,
			k->key, bm_key_type_name(k->type));
		bm_json_str(out, k->unit);
		fputs(",\"meaning\":", out);
		bm_json_str(out, k->meaning);
		fprintf(out, ",\"format_version\":%d}\n", BM_REPORT_FORMAT);
	}
}

int bm_schema_print(FILE *out, const char *view)
{
	size_t i;

	if (view) {
		const struct bm_schema *s = bm_schema_find(view);

		if (!s)
			return -1;
		print_view(out, s);
		return 0;
	}
	for (i = 0; i < NSCHEMAS; i++)
		print_view(out, &schemas[i]);
	return 0;
}

void bm_schema_csv_header(FILE *out, const struct bm_schema *s)
{
	size_t i;

	for (i = 0; i < s->nkeys; i++)
		fprintf(out, "%s%s", i ? "," : "", s->keys[i].key);
	putc('\n', out);
}

/* ---- rows ---- */

static int slot(struct bm_row *r, const char *key, enum bm_key_type type)
{
	int i = bm_schema_index(r->schema, key);

	if (i < 0 || i >= BM_ROW_KEYS || r->schema->keys[i].type != type) {
		fprintf(stderr, "blkmap: bug: the %s view sets '%s' as a %s, which its schema "
			"does not have\n", r->schema->view, key, bm_key_type_name(type));
		abort();
	}
	r->v[i].set = true;
	return i;
}

static void clear(struct bm_row *r)
{
	size_t i;

	for (i = 0; i < r->schema->nkeys && i < BM_ROW_KEYS; i++)
		r->v[i].set = false;
	r->ntext = 0;
	bm_row_int(r, "format_version", BM_REPORT_FORMAT);
}

void bm_row_start(struct bm_row *r, FILE *out, enum bm_output_format format,
		  const struct bm_schema *s)
{
	r->out = out;
	r->format = format;
	r->schema = s;
	clear(r);
}

void bm_row_int(struct bm_row *r, const char *key, int64_t v)
{
	r->v[slot(r, key, BM_KEY_INT)].i = v;
}

void bm_row_u64(struct bm_row *r, const char *key, uint64_t v)
{
	int i = slot(r, key, BM_KEY_INT);

	r->v[i].i = (int64_t)v;
	r->v[i].set = v <= INT64_MAX;
}

void bm_row_num(struct bm_row *r, const char *key, double v)
{
	int i = slot(r, key, BM_KEY_NUM);

	r->v[i].d = v;
	r->v[i].set = isfinite(v);
}

/*
 * A row's texts are short (names, a sentence) and share text[]: one that
 * does not fit is cut at a character's start and ends in "...", and where
 * not even that fits, it is left unset.
 */
void bm_row_str(struct bm_row *r, const char *key, const char *s)
{
	static const char mark[] = "...";
	int i = slot(r, key, BM_KEY_STR);
	size_t len = strlen(s), room, cut;

	room = r->ntext < sizeof(r->text) ? sizeof(r->text) - r->ntext - 1 : 0;
	if (r->ntext >= sizeof(r->text) || (len > room && room < sizeof(mark) - 1)) {
		r->v[i].set = false;
		return;
	}
	cut = len > room ? room - (sizeof(mark) - 1) : len;
	while (cut < len && cut && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--;
	memcpy(r->text + r->ntext, s, cut);
	if (cut < len)
		memcpy(r->text + r->ntext + cut, mark, sizeof(mark) - 1);
	len = cut < len ? cut + sizeof(mark) - 1 : len;
	r->text[r->ntext + len] = '\0';
	r->v[i].at = r->ntext;
	r->ntext += len + 1;
}

void bm_row_bool(struct bm_row *r, const char *key, bool v)
{
	r->v[slot(r, key, BM_KEY_BOOL)].b = v;
}

static void put(struct bm_row *r, size_t i, bool json)
{
	const struct bm_key *k = &r->schema->keys[i];

	if (!r->v[i].set) {
		if (json)
			fputs("null", r->out);
		return;
	}
	switch (k->type) {
	case BM_KEY_INT:
		fprintf(r->out, "%" PRId64, r->v[i].i);
		break;
	case BM_KEY_NUM:
		if (k->decimals < 0)	/* significant digits: a p-value of 1e-30 is not 0 */
			fprintf(r->out, "%.*g", -k->decimals, r->v[i].d);
		else
			fprintf(r->out, "%.*f", k->decimals, r->v[i].d);
		break;
	case BM_KEY_STR:
		if (json)
			bm_json_str(r->out, r->text + r->v[i].at);
		else
			bm_csv_str(r->out, r->text + r->v[i].at);
		break;
	case BM_KEY_BOOL:
		fputs(r->v[i].b ? "true" : "false", r->out);
		break;
	}
}

void bm_row_end(struct bm_row *r)
{
	bool json = r->format == BM_FORMAT_JSON;
	size_t i;

	if (json)
		putc('{', r->out);
	for (i = 0; i < r->schema->nkeys; i++) {
		if (json)
			fprintf(r->out, "%s\"%s\":", i ? "," : "", r->schema->keys[i].key);
		else if (i)
			putc(',', r->out);
		put(r, i, json);
	}
	fputs(json ? "}\n" : "\n", r->out);
	clear(r);
}
