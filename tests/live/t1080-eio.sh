# The output's device starts failing writes with EIO while recording: the
# recording stops with that error, keeps what it had written, readable, and
# recoverable elsewhere; by the default path (splice(2) past the page cache
# where sub-buffers can be sized, 6.8+) and by read(2), both writing 1 MiB
# at most at a time (a read(2) batch of 16 KiB sub-buffers).
. "$(dirname "$0")/lib.sh"
need_root
[ -x "${EIOFS:-}" ] || skip "no eiofs helper (libfuse3-dev)"
[ -e /dev/fuse ] || skip "no /dev/fuse"

truncate -s 64M "$T/img"
L=$(new_loop "$T/img")

# eio_run NAME [VAR=VALUE...]: record on a fresh file system that fails
# after 3000000 bytes (a few writes), as the user would, with that environment.
eio_run() {
	name=$1
	shift
	mkdir "$T/backing.$name" "$T/bad.$name"
	"$EIOFS" "$T/backing.$name" "$T/bad.$name" 3000000 2>/dev/null &
	for i in $(seq 50); do grep -q " $T/bad.$name " /proc/mounts && break; sleep 0.1; done
	grep -q " $T/bad.$name " /proc/mounts || skip "cannot mount a FUSE file system here"
	set +e
	env "$@" "$BLKMAP" record -o "$T/bad.$name/rec.dat" -- dd if=/dev/zero of="$L" bs=4k \
		count=20000 oflag=direct 2>"$T/err.$name"
	got=$?
	set -e
	cat "$T/err.$name"
	[ "$got" -eq 1 ] || fail "$name: record on a failing device exited $got, not 1"
	grep -q "Input/output error" "$T/err.$name" || fail "$name: no word of the I/O error"
	spool=$(ls -d "$T"/bad.$name/.blkmap-*.spool) || fail "$name: the spool was not kept"
	n=$("$BLKMAP" report "$spool" | grep -c "block_rq_issue .*$(basename "$L")" || true)
	note "$name: the kept spool holds $n write requests"
	[ "$n" -gt 0 ] || fail "$name: the kept spool holds no I/O"
	"$BLKMAP" recover "$spool" -o "$T/recovered.$name.dat" || fail "$name: recover failed"
	m=$("$BLKMAP" report "$T/recovered.$name.dat" | grep -c "block_rq_issue .*$(basename "$L")" || true)
	[ "$m" -eq "$n" ] || fail "$name: recovered $m write requests of $n"
	fusermount3 -u "$T/bad.$name" 2>/dev/null || umount "$T/bad.$name"
	pid=${spool##*/.blkmap-}
	[ ! -e "/run/blkmap/${pid%%-*}" ] || fail "$name: recover left the spool's registry entry"
	assert_clean
}
eio_run default
if subbufs_sizable; then
	grep -q "pages by splice(2) .* past the page cache" "$T/err.default" ||
		fail "the default path is not splice(2) past the page cache"
fi
eio_run read BLKMAP_CAPTURE=read
grep -q "pages by read(2)" "$T/err.read" || fail "BLKMAP_CAPTURE=read did not read"
