# The output's device starts failing writes with EIO while recording: the
# recording stops with that error, keeps what it had written, readable, and
# recoverable elsewhere.
. "$(dirname "$0")/lib.sh"
need_root
[ -x "${EIOFS:-}" ] || skip "no eiofs helper (libfuse3-dev)"
[ -e /dev/fuse ] || skip "no /dev/fuse"

mkdir "$T/backing" "$T/bad"
"$EIOFS" "$T/backing" "$T/bad" 300000 2>/dev/null &
for i in $(seq 50); do grep -q " $T/bad " /proc/mounts && break; sleep 0.1; done
grep -q " $T/bad " /proc/mounts || skip "cannot mount a FUSE file system here"
truncate -s 64M "$T/img"
L=$(new_loop "$T/img")
set +e
"$BLKMAP" record -o "$T/bad/rec.dat" -- dd if=/dev/zero of="$L" bs=4k count=20000 \
	oflag=direct 2>"$T/err"
got=$?
set -e
cat "$T/err"
[ "$got" -eq 1 ] || fail "record on a failing device exited $got, not 1"
grep -q "Input/output error" "$T/err" || fail "no word of the I/O error"
spool=$(ls -d "$T"/bad/.blkmap-*.spool) || fail "the spool was not kept"
n=$("$BLKMAP" report "$spool" | grep -c "block_rq_issue .*$(basename "$L")" || true)
note "the kept spool holds $n write requests"
[ "$n" -gt 0 ] || fail "the kept spool holds no I/O"
"$BLKMAP" recover "$spool" -o "$T/recovered.dat" || fail "recover failed"
m=$("$BLKMAP" report "$T/recovered.dat" | grep -c "block_rq_issue .*$(basename "$L")" || true)
[ "$m" -eq "$n" ] || fail "recovered $m write requests of $n"
fusermount3 -u "$T/bad" 2>/dev/null || umount "$T/bad"
pid=${spool##*/.blkmap-}
[ ! -e "/run/blkmap/${pid%.spool}" ] || fail "recover left the spool's registry entry"
assert_clean
