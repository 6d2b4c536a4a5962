# Where the kernel refuses a tracefs setting blkmap chose itself (some 6.18
# kernels refuse every write to buffer_subbuf_size_kb), record, the flight
# recorder, its trigger and top still record, with the kernel's value, and
# say so in a line each; a value the user gave (-S, -b) that the kernel
# refuses, a clock blkmap cannot record without, and a map source named
# by --sources that this kernel lacks stop the recording before it starts,
# leaving nothing. BLKMAP_FAULT_TRACEFS makes the kernel's refusal happen
# on kernels that would take the value.
. "$(dirname "$0")/lib.sh"
need_root
N=200
REFUSED=buffer_subbuf_size_kb,buffer_size_kb,buffer_percent

truncate -s 64M "$T/img"
L=$(new_loop "$T/img")
DEV=$(devnum "$L")
io() { dd if=/dev/zero of="$L" bs=4k count=$N oflag=direct 2>/dev/null; }

# writes FILE: the write requests on the loop device in a recording.
writes() {
	"$BLKMAP" report -f csv "$1" >"$T/events.csv" || fail "report $1 failed"
	awk -F, -v dev="$DEV" '$5 == "block_rq_issue" && $6 == dev && $8 ~ /W/' "$T/events.csv" | wc -l
}
# said ERRFILE [subbuf]: each refusal said in one line, with what is used
# instead (the sub-buffer size where blkmap wished for one: not in a flight
# recording, which reads pages of the kernel's size).
said() {
	for f in buffer_size_kb buffer_percent; do
		grep -q "the kernel refused $f .*; recording with its " "$1" ||
			fail "no word of the refused $f: $(cat "$1")"
	done
	[ "${2:-}" != subbuf ] || [ ! -e "$(tracing_dir)/buffer_subbuf_size_kb" ] ||
		grep -q "the kernel refused buffer_subbuf_size_kb 16 KiB .*; recording with its [0-9]* KiB: the kernel hands each page over by itself" "$1" ||
		fail "no word of the refused sub-buffer size: $(cat "$1")"
}

BLKMAP_FAULT_TRACEFS=$REFUSED "$BLKMAP" record -o "$T/rec.dat" -- \
	dd if=/dev/zero of="$L" bs=4k count=$N oflag=direct 2>"$T/record.err" || fail "record exited $?: $(cat "$T/record.err")"
assert_clean
said "$T/record.err" subbuf
grep -q "pages by splice(2) of trace_pipe_raw (sub-buffers of a page) into the spool past the page cache (O_DIRECT)" "$T/record.err" ||
	fail "the capture did not follow the kernel's pages: $(cat "$T/record.err")"
page=$(od -A n -t u4 -j 14 -N 4 "$T/rec.dat" | tr -d ' ')
[ "$page" -eq "$(getconf PAGESIZE)" ] || fail "the file's page size is $page, not the kernel's"
n=$(writes "$T/rec.dat")
[ "$n" -eq $N ] || fail "record: $n write requests on $DEV, not $N"
note "record: $n writes, pages of $page bytes"

BLKMAP_FAULT_TRACEFS=$REFUSED "$BLKMAP" record --ring=4M -o "$T/ring.dat" \
	--snapshot-on="latency>1us,disk=$(basename "$L")" --post=0.3 2>"$T/ring.err" &
rec=$!
wait_line "$T/ring.err" "recording into"
io
wait_line "$T/ring.err" "snapshot $T/ring.1.dat"
kill -INT $rec
wait $rec || fail "record --ring exited $?: $(cat "$T/ring.err")"
assert_clean
said "$T/ring.err"
[ -s "$T/ring.1.dat" ] || fail "the trigger wrote no snapshot: $(cat "$T/ring.err")"
n=$(writes "$T/ring.dat")
[ "$n" -eq $N ] || fail "record --ring: $n write requests on $DEV, not $N"
m=$(writes "$T/ring.1.dat")
[ "$m" -gt 0 ] || fail "the triggered snapshot holds no write on $DEV"
note "record --ring: $n writes; the trigger's snapshot $m"

BLKMAP_FAULT_TRACEFS=$REFUSED "$BLKMAP" top 0.5 -n 4 --format=csv --disk "$(basename "$L")" \
	>"$T/top.csv" 2>"$T/top.err" &
top=$!
sleep 0.7
io
wait $top || fail "top exited $?: $(cat "$T/top.err")"
assert_clean
said "$T/top.err"
w=$(csv_col "$T/top.csv" writes)
t=$(awk -F, -v c="$w" 'NR > 1 { s += $c } END { print s + 0 }' "$T/top.csv")
[ "$t" -eq $N ] || fail "top counted $t writes, not $N: $(cat "$T/top.csv")"
note "top: $t writes"

# refused RC WHAT PATTERN ENV... -- ARGS: record refused before it starts.
refused() {
	what=$1 pattern=$2; shift 2
	rm -f "$T/no.dat"
	env "$@" -o "$T/no.dat" -- true 2>"$T/no.err" && fail "$what: record went on"
	rc=$?
	[ $rc -eq 1 ] || fail "$what: record exited $rc, not 1"
	grep -q "$pattern" "$T/no.err" || fail "$what: the message does not say '$pattern': $(cat "$T/no.err")"
	[ ! -e "$T/no.dat" ] || fail "$what: a file was written"
	assert_clean
	note "$what: $(cat "$T/no.err")"
}
# alone FILE: a refused source is the only line said: nothing was set up
# (nor warned of) for a recording that is not made.
alone() {
	[ "$(wc -l <"$1")" -eq 1 ] || fail "more than the refusal was said: $(cat "$1")"
}
refused "-S 16 refused" "refused -S 16 .*buffer_subbuf_size_kb.*leave out -S\|cannot change the sub-buffer size" \
	BLKMAP_FAULT_TRACEFS=buffer_subbuf_size_kb "$BLKMAP" record -S 16
refused "-b 8192 refused" "refused -b 8192 .*buffer_size_kb: Operation not permitted); it keeps its [0-9]* KiB: leave out -b" \
	BLKMAP_FAULT_TRACEFS=buffer_size_kb "$BLKMAP" record -b 8192
refused "the clock refused" "refused the trace clock mono .*trace_clock" \
	BLKMAP_FAULT_TRACEFS=trace_clock "$BLKMAP" record
if [ ! -e "$(tracing_dir)/kprobe_events" ]; then
	refused "--sources=kprobe without kprobes" \
		"does not offer: kprobe: no kprobe_events.*use what it offers (.*uevent,sysfs)" \
		"$BLKMAP" record --sources=kprobe
	alone "$T/no.err"
else
	note "SKIP --sources=kprobe refused: this kernel has kprobe events"
fi
if [ ! -e /sys/kernel/blkmap/control ]; then
	refused "--sources=module,uevent without the module" \
		"does not offer: module: the blkmap module is not loaded" \
		"$BLKMAP" record --sources=module,uevent
	alone "$T/no.err"
else
	note "SKIP --sources=module refused: the module is loaded"
fi
