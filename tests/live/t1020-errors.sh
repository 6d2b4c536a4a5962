# Bad input and faults: clear messages, the documented exit codes, nothing left.
. "$(dirname "$0")/lib.sh"
need_root

expect() {	# expect STATUS PATTERN COMMAND...
	want=$1 pattern=$2; shift 2
	set +e
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	set -e
	[ "$got" -eq "$want" ] || { cat "$T/err"; fail "'$*' exited $got, not $want"; }
	grep -q -- "$pattern" "$T/err" || { cat "$T/err"; fail "'$*' did not say '$pattern'"; }
	note "$* -> $got: $(head -n 1 "$T/err")"
}

expect 1 "event block:no_such_event does not exist" \
	"$BLKMAP" record -o "$T/x.dat" -e block:no_such_event -- true
expect 1 "cannot write '$T/missing/x.dat'" "$BLKMAP" record -o "$T/missing/x.dat" -- true
expect 127 "cannot run 'no-such-command-here'" \
	"$BLKMAP" record -o "$T/x.dat" -- no-such-command-here
expect 3 "recorded" "$BLKMAP" record -o "$T/x.dat" -- sh -c 'exit 3'
expect 64 "unknown source" "$BLKMAP" record --sources=telepathy -- true
expect 64 "not a command" "$BLKMAP" frobnicate
assert_clean

if command -v setpriv >/dev/null; then
	expect 1 "needs root" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$BLKMAP" record -o /tmp/never.dat -- true
fi

# Files that are not recordings, or are damaged.
echo "hello" >"$T/text.dat"
expect 1 "'$T/text.dat': offset 0: not a trace file" "$BLKMAP" report "$T/text.dat"
expect 1 "cannot open '$T/none.dat'" "$BLKMAP" report "$T/none.dat"
"$BLKMAP" record -q -o "$T/good.dat" -- true
size=$(stat -c %s "$T/good.dat")
head -c $((size - 100)) "$T/good.dat" >"$T/cut.dat"
# A file cut short is read as far as it goes, saying what it lacks (t0420).
expect 0 "'$T/cut.dat' is cut short: CPU [0-9]* lacks" "$BLKMAP" report "$T/cut.dat"
head -c 300 "$T/good.dat" >"$T/head.dat"
expect 1 "'$T/head.dat': offset [0-9]*:" "$BLKMAP" report "$T/head.dat"

# The disk fills while recording: say so, let the command finish, and keep
# what was recorded in the spool, readable, and recoverable elsewhere. A
# buffer of 1 MiB a CPU wakes the reader at a fifth of it, so that the full
# disk is met while the command still runs.
mkdir "$T/small"
mount -t tmpfs -o size=256k tmpfs "$T/small" || skip "cannot mount a small tmpfs"
truncate -s 64M "$T/img"
L=$(new_loop "$T/img")
set +e
"$BLKMAP" record -b 1024 -o "$T/small/full.dat" -- \
	dd if=/dev/zero of="$L" bs=4k count=20000 oflag=direct 2>"$T/err"
got=$?
set -e
cat "$T/err"
[ "$got" -eq 1 ] || fail "record on a full disk exited $got, not 1"
grep -q "No space left on device" "$T/err" || fail "no word of the full disk"
grep -q "waiting for 'dd'" "$T/err" || fail "the command was not waited for"
spool=$(ls -d "$T"/small/.blkmap-*.spool) || fail "the spool was not kept"
[ ! -e "$T/small/full.dat" ] || fail "a partial output was left"
"$BLKMAP" report "$spool" >"$T/spool.txt" || fail "the kept spool does not read"
n=$(grep -c "block_rq_issue .*$(basename "$L")" "$T/spool.txt" || true)
note "the kept spool holds $n write requests"
[ "$n" -gt 0 ] || fail "the kept spool holds no I/O"
"$BLKMAP" recover "$spool" -o "$T/recovered.dat" || fail "recover failed"
[ ! -e "$spool" ] || fail "recover left the spool"
m=$("$BLKMAP" report "$T/recovered.dat" | grep -c "block_rq_issue .*$(basename "$L")" || true)
[ "$m" -eq "$n" ] || fail "recovered $m write requests of $n"
umount "$T/small"
pid=${spool##*/.blkmap-}
[ ! -e "/run/blkmap/${pid%%-*}" ] || fail "recover left the spool's registry entry"
assert_clean
