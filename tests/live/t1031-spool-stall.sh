# A spool whose disk stalls loses nothing while the recorder's pipes and the
# ring buffer hold what comes meanwhile. The file system under the recording
# is frozen (fsfreeze: its writes wait, as on a disk that stops answering
# for a while), 11 MiB of markers are written on one CPU, then it is thawed.
# On a machine of 2 CPUs a CPU has 16 pipes of a MiB, 8 on 3 or 4 CPUs:
# with the ring buffer's 4 MiB, room for all of it. With 4 pipes a CPU, as
# before, some 8 MiB held, and the rest was lost.
. "$(dirname "$0")/lib.sh"
need_root
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
command -v fsfreeze >/dev/null || skip "no fsfreeze"
command -v taskset >/dev/null || skip "no taskset"
n=$(nproc)
[ "$n" -le 4 ] || skip "SKIP: $n CPUs: the recorder has 4 pipes a CPU here, as before"

truncate -s 256M "$T/img"
L=$(new_loop "$T/img")
mkfs.ext4 -q "$L"
mkdir "$T/mnt"
mount "$L" "$T/mnt"
"$BLKMAP" record -o "$T/mnt/rec.dat" 2>"$T/record.err" &
rec=$!
wait_line "$T/record.err" "recording into"
grep -q "recording into .*splice(2)" "$T/record.err" ||
	skip "SKIP: the recorder does not splice here: $(grep 'recording into' "$T/record.err")"
inst=$(sed -n 's/.*recording into instance \([^,]*\),.*/\1/p' "$T/record.err")
fsfreeze -f "$T/mnt"
# The premise: a write into the file system waits (uninterruptibly: in the
# background, until the thaw).
touch "$T/mnt/probe" &
probe=$!
sleep 0.5
running $probe || { fsfreeze -u "$T/mnt"; fail "a write into the frozen file system did not wait (test premise)"; }
# 90 000 markers of 100 bytes, a write each, on CPU 0: 128 bytes an event,
# 11 MiB in the ring buffer's pages.
tr '\0' m </dev/zero | taskset -c 0 dd of="$(tracing_dir)/instances/$inst/trace_marker" \
	bs=100 count=90000 iflag=fullblock status=none || { fsfreeze -u "$T/mnt"; fail "markers not written"; }
sleep 0.5
fsfreeze -u "$T/mnt"
wait $probe
sleep 1
kill -INT $rec
wait $rec || { cat "$T/record.err"; fail "record exited $?"; }
cat "$T/record.err"
grep -q "; lost 0 " "$T/record.err" || fail "events were lost while the spool's file system was frozen"
events=$(sed -n 's/.*recorded \([0-9]*\) events.*/\1/p' "$T/record.err")
[ "${events:-0}" -ge 90000 ] || fail "${events:-no} events recorded, fewer than the markers"
assert_clean
