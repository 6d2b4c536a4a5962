# blkmap top: the CSV mode's counts, interval by interval, add up to the
# kernel's own (/sys/block/X/stat); on a terminal (tmux), a zram device
# removed and another created on its number show as two rows, the gone one
# marked, and the new one goes on alone.
. "$(dirname "$0")/lib.sh"
need_root
[ -e /sys/class/zram-control/hot_add ] || skip "no zram-control"
command -v tmux >/dev/null || fail "tmux is missing (scripts/install-deps installs it)"

stat_field() { awk -v f="$2" '{print $f}' "/sys/block/$1/stat"; }

# CSV: six intervals of a second; known I/O in the middle of them.
z=$(new_zram)
reads0=$(stat_field zram$z 1) writes0=$(stat_field zram$z 5)
start=$(date +%s)
"$BLKMAP" top 1 -n 6 --format=csv --disk zram$z >"$T/top.csv" 2>"$T/top.err" &
top=$!
wait_line "$T/top.err" "recording into"
dd if=/dev/zero of=/dev/zram$z bs=4k count=500 oflag=direct 2>/dev/null
dd if=/dev/zram$z of=/dev/null bs=4k count=200 iflag=direct 2>/dev/null
wait $top || { cat "$T/top.err"; fail "blkmap top failed"; }
took=$(($(date +%s) - start))
reads=$(($(stat_field zram$z 1) - reads0)) writes=$(($(stat_field zram$z 5) - writes0))
intervals=$(awk -F, 'NR > 1 {print $1}' "$T/top.csv" | sort -u | wc -l)	# with I/O
rc=$(csv_col "$T/top.csv" reads) wc=$(csv_col "$T/top.csv" writes)
nc=$(csv_col "$T/top.csv" name)
got=$(awk -F, -v n="$nc" -v r="$rc" -v w="$wc" -v want="zram$z" \
	'NR > 1 && $n == want {rs += $r; ws += $w} END {print rs + 0, ws + 0}' "$T/top.csv")
note "top: $took s, $intervals intervals with I/O; reads, writes: $got; the kernel's: $reads $writes"
[ "$took" -ge 5 ] && [ "$took" -le 10 ] || fail "top -n 6 with 1 s intervals took $took s"
[ "$got" = "$reads $writes" ] || { cat "$T/top.csv"; fail "top counted $got, the kernel $reads $writes"; }
[ "$writes" -ge 500 ] || fail "premise missing: the kernel counted $writes writes"
drop_zram "$z"
assert_clean

# A terminal: the screen, captured while zram devices come and go.
session=blkmap-top-$$
tmux new-session -d -s $session -x 200 -y 40 "'$BLKMAP' top 0.5 2>'$T/tty.err'; sleep 30"
trap 'tmux kill-session -t $session 2>/dev/null || true; cleanup' EXIT
capture() { tmux capture-pane -p -t $session >>"$T/screens"; echo "----" >>"$T/screens"; }
wait_line "$T/tty.err" "recording into"
a=$(new_zram)
for i in 1 2 3 4 5 6; do
	dd if=/dev/zero of=/dev/zram$a bs=4k count=50 oflag=direct 2>/dev/null
	sleep 0.2
done
capture
drop_zram "$a"
b=$(new_zram)
[ "$b" = "$a" ] || fail "premise missing: zram id not reused ($a then $b)"
for i in 1 2 3 4 5 6 7 8 9 10; do
	dd if=/dev/zero of=/dev/zram$b bs=4k count=50 oflag=direct 2>/dev/null
	capture
	sleep 0.2
done
# The last screen: with I/O in every interval, whenever it is taken.
stop=$T/stop-writing
(until [ -e "$stop" ]; do dd if=/dev/zero of=/dev/zram$b bs=4k count=5 oflag=direct 2>/dev/null; sleep 0.1; done) &
writer=$!
sleep 1.2
capture
touch "$stop"; wait $writer
tmux send-keys -t $session C-c
sleep 1
grep -q "^zram$a  *253:$a#[0-9]* " "$T/screens" || { cat "$T/screens"; fail "zram$a never showed"; }
grep -q "^zram$a (gone)" "$T/screens" || { cat "$T/screens"; fail "no (gone) row for the first zram$a"; }
grep -q "^zram$a (new)" "$T/screens" || { cat "$T/screens"; fail "no (new) row for the second zram$a"; }
# Both rows on one screen: the interval of the change.
awk -v g="^zram$a \\\\(gone\\\\)" -v n="^zram$a \\\\(new\\\\)" '
	$0 == "----" { if (gone && new) both = 1; gone = new = 0; next }
	$0 ~ g { gone = 1 } $0 ~ n { new = 1 } END { exit !both }' "$T/screens" ||
	{ cat "$T/screens"; fail "the gone and the new zram$a never on one screen"; }
# The last screen: the second device alone, not marked.
last=$(awk '$0 == "----" { s = cur; cur = ""; next } { cur = cur $0 "\n" } END { printf "%s", s }' \
	"$T/screens")
echo "$last" | grep -q "^zram$a  *253:$a#[0-9]* " || { echo "$last"; fail "the last screen lacks zram$a"; }
echo "$last" | grep -q "(gone)" && { echo "$last"; fail "the last screen still shows a gone row"; }
note "screen of the change:"
awk -v g="^zram$a \\\\(gone\\\\)" '$0 == "----" { if (hit) { printf "%s", s; exit } s = ""; next }
	{ s = s $0 "\n" } $0 ~ g { hit = 1 }' "$T/screens" | sed '/^ *$/d'
drop_zram "$b"
tmux kill-session -t $session 2>/dev/null || true
sleep 0.5
assert_clean
