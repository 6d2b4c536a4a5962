# A spool whose disk stalls loses nothing while the recorder's pipes and the
# ring buffer hold what comes meanwhile. The file system under the recording
# is frozen (fsfreeze: its writes wait, as on a disk that stops answering
# for a while), 9.8 MiB of markers are written on one CPU, then it is
# thawed. On a machine of 1 or 2 possible CPUs a CPU has 16 pipes of a MiB,
# 8 on 3 or 4: with the ring buffer's 4 MiB, room for all of it. With 4
# pipes a CPU, as before, some 7 MiB held (a pipe went to the writer half
# full at each wake-up), and the rest was lost; with 16 but a look for the
# partly filled page that waited for the disk, 4 MiB.
. "$(dirname "$0")/lib.sh"
need_root
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
command -v fsfreeze >/dev/null || skip "no fsfreeze"
command -v taskset >/dev/null || skip "no taskset"
# The recorder's CPUs: those the kernel has a buffer for.
n=$(ls -d "$(tracing_dir)"/per_cpu/cpu* | wc -l)
[ "$n" -le 4 ] || skip "$n possible CPUs: the recorder has 4 pipes a CPU here, as before"

truncate -s 256M "$T/img"
L=$(new_loop "$T/img")
mkfs.ext4 -q "$L"
mkdir "$T/mnt"
mount "$L" "$T/mnt"
# Sub-buffers of a page where the kernel sizes them: the reader looks for a
# partly filled one every second then (every 4 with 16 KiB).
S=""
! subbufs_sizable || S="-S 4"
# shellcheck disable=SC2086 # $S: an option or none
"$BLKMAP" record $S -o "$T/mnt/rec.dat" 2>"$T/record.err" &
rec=$!
wait_line "$T/record.err" "recording into"
grep -q "recording into .*splice(2)" "$T/record.err" ||
	skip "the recorder does not splice here: $(grep 'recording into' "$T/record.err")"
inst=$(sed -n 's/.*recording into instance \([^,]*\),.*/\1/p' "$T/record.err")
freeze "$T/mnt"
# The premise: a write into the file system waits (uninterruptibly: in the
# background, until the thaw).
touch "$T/mnt/probe" &
probe=$!
sleep 0.5
running $probe || { thaw "$T/mnt" || true; fail "a write into the frozen file system did not wait (test premise)"; }
# A marker on CPU 0, and a second more: the reader's once-a-second look for
# a partly filled page comes while the disk stalls, and must neither wait
# for the disk nor hand the writer a pipe half full.
taskset -c 0 sh -c "echo stalled >$(tracing_dir)/instances/$inst/trace_marker"
sleep 1
# 80 000 markers of 100 bytes, a write each, on CPU 0: 128 bytes an event,
# 9.8 MiB in the ring buffer's pages.
tr '\0' m </dev/zero | taskset -c 0 dd of="$(tracing_dir)/instances/$inst/trace_marker" \
	bs=100 count=80000 iflag=fullblock status=none || { thaw "$T/mnt" || true; fail "markers not written"; }
sleep 0.5
thaw "$T/mnt" || fail "cannot thaw $T/mnt"
wait $probe
sleep 1
kill -INT $rec 2>/dev/null || true
st=0
wait $rec || st=$?
cat "$T/record.err"
[ $st -eq 0 ] || fail "record exited $st"
grep -q "; lost 0 " "$T/record.err" || fail "events were lost while the spool's file system was frozen"
events=$(sed -n 's/.*recorded \([0-9]*\) events.*/\1/p' "$T/record.err")
[ "${events:-0}" -ge 80000 ] || fail "${events:-no} events recorded, fewer than the markers"
assert_clean
spools=$(ls -a "$T/mnt" | grep '^\.blkmap-' || true)
[ -z "$spools" ] || fail "spool left behind: $spools"
