# report --cgroups against the kernel's own per-cgroup counters, read
# inside the recording: two cgroups doing direct 1 MiB I/O at queue depth 8
# on a loop device at once, and a task that forks a writer, moves to the
# other cgroup and forks another. Each cgroup's bytes on the device equal
# the kernel's, its I/Os (bios and the pieces the block layer split them
# into) within 2 %; --cgroup keeps one cgroup's rows.
#
# The oracle: cgroup v2's io.stat where the host's cgroup v2 has the io
# controller; else, on a hybrid host whose blkio is cgroup v1's, the
# blkio.throttle counters of v1 cgroups that hold the same tasks (the
# kernel counts them only for a cgroup with a limit: one nothing reaches).
. "$(dirname "$0")/lib.sh"
need_root
command -v fio >/dev/null || skip "no fio"
root=$(awk '$0 ~ / - cgroup2 / && $4 == "/" { print $5; exit }' /proc/self/mountinfo)
[ -n "$root" ] || skip "no cgroup2 file system mounted"
[ -d "$(tracing_dir)/events/cgroup/cgroup_attach_task" ] || skip "this kernel has no cgroup events"
v1=$(awk '$0 ~ / - cgroup / && $NF ~ /(^|,)blkio(,|$)/ { print $5; exit }' /proc/self/mountinfo)
if grep -qw io "$root/cgroup.controllers"; then
	oracle=io.stat
elif [ -n "$v1" ] && [ -e "$v1/blkio.throttle.io_service_bytes" ]; then
	oracle=v1
else
	skip "neither cgroup v2's io controller nor cgroup v1's blkio throttle: no kernel counter per cgroup"
fi
top=blkmap-t2150-$$
drop_cgroups() {
	for d in "$root/$top" "${v1:-/nonexistent}/$top"; do
		[ ! -d "$d" ] || rmdir "$d/a" "$d/b" "$d" 2>/dev/null || true
	done
}
trap 'st=$?; set +e; stop_jobs; drop_cgroups; (exit $st); cleanup' EXIT

truncate -s 256M "$T/img"
L=$(new_loop "$T/img")
dev=$(lsblk -dno MAJ:MIN "$L" | tr -d ' ')
mkdir "$root/$top" "$root/$top/a" "$root/$top/b"
if [ $oracle = io.stat ]; then
	grep -qw io "$root/cgroup.subtree_control" || echo +io >"$root/cgroup.subtree_control"
	echo +io >"$root/$top/cgroup.subtree_control"
else
	mkdir "$v1/$top" "$v1/$top/a" "$v1/$top/b"
	for c in a b; do
		echo "$dev 1000000000000" >"$v1/$top/$c/blkio.throttle.read_bps_device"
		echo "$dev 1000000000000" >"$v1/$top/$c/blkio.throttle.write_bps_device"
	done
fi

# c=a; . join: the calling shell into cgroup a or b (of both hierarchies).
cat >"$T/join" <<EOF
echo \$\$ >"$root/$top/\$c/cgroup.procs"
[ $oracle = io.stat ] || echo \$\$ >"$v1/$top/\$c/cgroup.procs"
EOF
cat >"$T/job.fio" <<EOF
[rw]
filename=$L
ioengine=libaio
direct=1
iodepth=8
bs=1m
rw=randrw
size=200m
io_size=48m
EOF
cat >"$T/run" <<EOF
for c in a b; do
	sh -c "c=\$c; . $T/join; exec fio --output=$T/fio.\$c $T/job.fio" &
done
# The mover: a writer forked in a, then, moved to b, another.
sh -c "c=a; . $T/join
	dd if=/dev/zero of=$L bs=1M count=6 seek=200 oflag=direct status=none &
	c=b; . $T/join
	dd if=/dev/zero of=$L bs=1M count=10 seek=220 oflag=direct status=none &
	wait" &
wait
for c in a b; do
	if [ $oracle = io.stat ]; then
		grep "^$dev " "$root/$top/\$c/io.stat" >$T/counted.\$c || :
	else
		cat "$v1/$top/\$c/blkio.throttle.io_service_bytes" "$v1/$top/\$c/blkio.throttle.io_serviced" >$T/counted.\$c
	fi
done
EOF
"$BLKMAP" record -o "$T/rec.dat" -- sh "$T/run" 2>"$T/record.err" ||
	{ cat "$T/record.err"; fail "record failed"; }
grep -q "lost 0 " "$T/record.err" || { cat "$T/record.err"; fail "events were lost: the counts cannot agree"; }
"$BLKMAP" report --cgroups -f csv "$T/rec.dat" >"$T/cgroups.csv" || fail "report --cgroups failed"

# The kernel's counters of cgroup $1 now, into $T/counted.$1.
counted_now() {
	if [ $oracle = io.stat ]; then
		grep "^$dev " "$root/$top/$1/io.stat" >"$T/counted.$1" || :
	else
		cat "$v1/$top/$1/blkio.throttle.io_service_bytes" \
		    "$v1/$top/$1/blkio.throttle.io_serviced" >"$T/counted.$1"
	fi
	counted "$1"
}
# The kernel's: rbytes wbytes rios wios of a cgroup on the device.
counted() {
	if [ $oracle = io.stat ]; then
		tr ' ' '\n' <"$T/counted.$1" | awk -F= '{ v[$1] = $2 }
			END { print v["rbytes"] + 0, v["wbytes"] + 0, v["rios"] + 0, v["wios"] + 0 }'
	else
		awk -v d="$dev" '$1 == d && $2 == "Read" { v[n++] = $3 } $1 == d && $2 == "Write" { w[m++] = $3 }
			END { print v[0] + 0, w[0] + 0, v[1] + 0, w[1] + 0 }' "$T/counted.$1"
	fi
}
# blkmap's: the same of its row for /$top/CGROUP on the device.
reported() {
	awk -F, -v cg="/$top/$1" -v d="$dev" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		$k["cgroup"] == cg && $k["dev"] == d {
			print $k["read_bytes"], $k["write_bytes"], $k["reads"], $k["writes"],
			      $k["cgroup_basis"]; n++ }
		END { if (n != 1) print "rows:", n + 0 }' "$T/cgroups.csv"
}
cd "$T"
for c in a b; do
	set -- $(counted $c)
	k_rb=$1 k_wb=$2 k_r=$3 k_w=$4
	[ "$k_rb" -gt 0 ] && [ "$k_wb" -gt 0 ] ||
		fail "premise missing: the kernel counted no reads or no writes of $c on $dev ($*)"
	set -- $(reported $c)
	[ "$1" != rows: ] || fail "--cgroups has $2 rows of /$top/$c on $dev: $(cat cgroups.csv)"
	b_rb=$1 b_wb=$2 b_r=$3 b_w=$4 basis=$5
	[ "$b_rb" = "$k_rb" ] && [ "$b_wb" = "$k_wb" ] ||
		fail "/$top/$c on $dev: blkmap read $b_rb and wrote $b_wb bytes, the kernel ($oracle) $k_rb and $k_wb"
	for pair in "$b_r $k_r" "$b_w $k_w"; do
		set -- $pair
		[ $((100 * ($1 - $2))) -le $((2 * $2)) ] && [ $((100 * ($2 - $1))) -le $((2 * $2)) ] ||
			fail "/$top/$c on $dev: blkmap counted $1 I/Os, the kernel ($oracle) $2: more than 2 % apart"
	done
	[ "$basis" = task ] || fail "/$top/$c: basis $basis, not task"
	note "/$top/$c on $dev: $k_rb bytes read, $k_wb written, as $oracle counted them; I/Os $b_r and $b_w, $oracle's $k_r and $k_w"
done
# --cgroup keeps a's rows alone.
"$BLKMAP" report --cgroups -f csv --cgroup="/$top/a" rec.dat >a.csv
[ "$(tail -n +2 a.csv | wc -l)" -ge 1 ] || fail "--cgroup=/$top/a kept nothing"
awk -F, -v cg="/$top/a" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
	$k["cgroup"] != cg { bad = 1 } END { exit bad }' a.csv ||
	fail "--cgroup=/$top/a kept other cgroups: $(cat a.csv)"

# blkmap top --cgroups: a writer in a while it runs; its intervals' bytes
# of a on the device add up to what the kernel counted meanwhile.
cd /
set -- $(counted_now a)
before=$2
"$BLKMAP" top 0.5 -n 6 --cgroups --cgroup="/$top/a" -f csv >"$T/top.csv" 2>"$T/top.err" &
toppid=$!
wait_line "$T/top.err" "recording into"
sh -c "c=a; . $T/join; exec dd if=/dev/zero of=$L bs=1M count=8 seek=100 oflag=direct status=none"
wait $toppid || { cat "$T/top.err"; fail "blkmap top --cgroups failed"; }
set -- $(counted_now a)
want=$(($2 - before))
got=$(awk -F, -v cg="/$top/a" -v d="$dev" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
	$k["cgroup"] == cg && $k["dev"] == d { s += $k["write_bytes"] } END { print s + 0 }' "$T/top.csv")
[ "$want" -ge 8388608 ] || fail "premise missing: the kernel counted $want bytes written by a"
[ "$got" = "$want" ] || { cat "$T/top.csv"; fail "top --cgroups: a wrote $got bytes, the kernel counted $want"; }
note "top --cgroups: a wrote $got bytes on $dev in its intervals, as $oracle counted"
