# Helpers for the live tests: real tracefs, real block devices, as root.
# Each test sources this file; everything it creates is removed on exit.
set -eu
BLKMAP=${BLKMAP:-$(cd "$(dirname "$0")/../.." && pwd)/blkmap}
T=$(mktemp -d "${TMPDIR:-/tmp}/blkmap-live.XXXXXX")
# Devices to remove at exit, one "loop DEV" or "zram N" a line: a file, since
# the helpers run in command substitutions (subshells).
DEVICES=$T/.devices
: >"$DEVICES"

skip() { echo "$*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }

# Is process $1 still running (a zombie is not)?
running() {
	[ -r "/proc/$1/stat" ] && ! sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^Z'
}

# Stop the background jobs: SIGINT, as a user would, then SIGTERM, then
# SIGKILL, each after a few seconds. Background jobs of sh start with SIGINT
# ignored, and a program that keeps an ignored signal ignored (a FUSE daemon)
# would otherwise be waited for until the suite's limit.
stop_jobs() {
	# Not $(jobs -p): dash's command substitution is a subshell without jobs.
	jobs -p >"$T/.jobs"
	pids=$(cat "$T/.jobs")
	for sig in INT TERM KILL; do
		[ -n "$pids" ] || break
		kill -$sig $pids 2>/dev/null || true
		tries=0
		while [ -n "$pids" ] && [ $tries -lt 30 ]; do
			alive=
			for pid in $pids; do ! running "$pid" || alive="$alive $pid"; done
			pids=$alive
			[ -z "$pids" ] || sleep 0.1
			tries=$((tries + 1))
		done
		[ -z "$pids" ] || echo "# cleanup: SIG$sig left$pids running" >&2
	done
	wait 2>/dev/null || true
}

cleanup() {
	status=$?
	# A file system a failed test left frozen (freeze) is thawed first:
	# what waits on it cannot stop, and it cannot be unmounted.
	while read -r kind dir; do
		[ "$kind" != frozen ] || fsfreeze -u "$dir" 2>/dev/null || true
	done <"$DEVICES"
	# Recorders a failed test left running: stop them.
	stop_jobs
	while read -r kind dev; do
		case $kind in
		loop) losetup -d "$dev" 2>/dev/null || true ;;
		zram) [ ! -e /sys/block/zram$dev ] ||
			echo "$dev" >/sys/class/zram-control/hot_remove 2>/dev/null || true ;;
		esac
	done <"$DEVICES"
	awk -v t="$T/" 'index($2, t) == 1 {print $2}' /proc/mounts | xargs -r umount 2>/dev/null || true
	# KEEP=1: a failed test's files stay, to be looked at.
	if [ $status -ne 0 ] && [ -n "${KEEP:-}" ]; then
		echo "# kept $T"
	else
		rm -rf "$T"
	fi
	exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

need_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (live tracefs and block devices)"
	grep -qw tracefs /proc/filesystems || skip "kernel has no tracefs"
}

tracing_dir() {
	if [ -d /sys/kernel/tracing/instances ]; then echo /sys/kernel/tracing
	else echo /sys/kernel/debug/tracing; fi
}

# Does this kernel let an instance's sub-buffers be resized? They exist
# from 6.8, and some kernels refuse every write to them (EPERM), as some
# 6.18 builds do.
subbufs_sizable() {
	[ -e "$(tracing_dir)/buffer_subbuf_size_kb" ] || return 1
	probe="$(tracing_dir)/instances/subbuf-probe-$$"
	mkdir "$probe" || return 1
	sizable=0
	echo 16 2>/dev/null >"$probe/buffer_subbuf_size_kb" || sizable=1
	rmdir "$probe"
	return $sizable
}

# Nothing of a recording may outlive it: no blkmap instance, kprobe, spool
# directory or registry entry, and the module attached to nothing.
assert_clean() {
	left=$(ls "$(tracing_dir)/instances" 2>/dev/null | grep '^blkmap-' || true)
	[ -z "$left" ] || fail "instances left behind: $left"
	probes=$(grep '^[pr]:blkmap' "$(tracing_dir)/kprobe_events" 2>/dev/null || true)
	[ -z "$probes" ] || fail "kprobes left behind: $probes"
	spools=$(ls -a "$T" | grep '^\.blkmap-' || true)
	[ -z "$spools" ] || fail "spool left behind: $spools"
	entries=$(ls /run/blkmap 2>/dev/null || true)
	[ -z "$entries" ] || fail "registry entries left behind in /run/blkmap: $entries"
	if [ -r /sys/kernel/blkmap/attached ]; then
		attached=$(cat /sys/kernel/blkmap/attached)
		[ -z "$attached" ] || fail "the module is still attached to '$attached'"
	fi
}

# wait_line FILE TEXT: until FILE holds TEXT (10 s at most); "recording
# into" says a recorder records.
wait_line() {
	n=0
	until grep -q "$2" "$1" 2>/dev/null; do
		n=$((n + 1)); [ $n -lt 100 ] || fail "no '$2' in $1: $(cat "$1" 2>/dev/null)"
		sleep 0.1
	done
}

track() { echo "$1 $2" >>"$DEVICES"; }
untrack() { grep -vx "$1 $2" "$DEVICES" >"$DEVICES.new" || true; mv "$DEVICES.new" "$DEVICES"; }

# new_loop FILE [losetup options]: attach FILE to a free loop device.
new_loop() {
	f=$1; shift
	l=$(losetup -f --show "$@" "$f") || fail "losetup $f"
	track loop "$l"
	echo "$l"
}

drop_loop() {
	losetup -d "$1"
	untrack loop "$1"
}

new_zram() {
	[ -e /sys/class/zram-control/hot_add ] || skip "no zram-control"
	z=$(cat /sys/class/zram-control/hot_add)
	track zram "$z"
	echo 64M >/sys/block/zram$z/disksize
	echo "$z"
}

drop_zram() {
	echo "$1" >/sys/class/zram-control/hot_remove
	untrack zram "$1"
}

# freeze DIR, thaw DIR: fsfreeze, thawed at exit whatever happens.
freeze() { track frozen "$1"; fsfreeze -f "$1"; }
thaw() { fsfreeze -u "$1" && untrack frozen "$1"; }

devnum() { cat "/sys/class/block/$(basename "$1")/dev"; }

. "$(dirname "$0")/../lib/labels.sh"
