# The cgroup map's records: the statedump at the start names every cgroup
# v2 by its id (its directory's inode, as the kernel's events do) and the
# tasks in it, a task started before the recording among them; the
# kernel's events then give a cgroup made, a task moved into it, a child
# forked there and the cgroup removed, each with the ids the file system
# showed. Only cgroup v2's hierarchy (0) is recorded, even where v1's are
# mounted beside it.
. "$(dirname "$0")/lib.sh"
need_root
root=$(awk '$0 ~ / - cgroup2 / && $4 == "/" { print $5; exit }' /proc/self/mountinfo)
[ -n "$root" ] || skip "no cgroup2 file system mounted"
[ -d "$(tracing_dir)/events/cgroup/cgroup_attach_task" ] || skip "this kernel has no cgroup events"
before=$root/blkmap-t2130-before after=$root/blkmap-t2130-after
trap 'st=$?; kill $sleeper 2>/dev/null || true; wait 2>/dev/null || true; rmdir "$before" 2>/dev/null || true; [ ! -d "$after" ] || rmdir "$after" || true; set +e; (exit $st); cleanup' EXIT
mkdir "$before"
sleep 60 &
sleeper=$!
echo $sleeper >"$before/cgroup.procs"
before_id=$(stat -c %i "$before")

"$BLKMAP" record -o "$T/rec.dat" -- sh -c "
	mkdir '$after'
	stat -c %i '$after' >'$T/after.id'
	sh -c 'echo \$\$ >\"$after/cgroup.procs\"; echo \$\$ >\"$T/mover.pid\"; sh -c \"echo \\\$\\\$ >$T/child.pid\"'
	rmdir '$after'" 2>"$T/record.err" || fail "record exited $?: $(cat "$T/record.err")"
assert_clean
after_id=$(cat "$T/after.id") mover=$(cat "$T/mover.pid") child=$(cat "$T/child.pid")
"$BLKMAP" report "$T/rec.dat" >"$T/events.txt" || fail "report failed"

grep -q "blkmap:cgroup id=$before_id path=/blkmap-t2130-before\$" "$T/events.txt" ||
	fail "the statedump does not name $before (id $before_id)"
grep "blkmap:cgroup-tasks id=$before_id " "$T/events.txt" | grep -Eq "pids=([0-9]+,)*$sleeper(,|\$)" ||
	fail "the statedump does not put $sleeper in $before"
grep -q "cgroup_mkdir .*root=0 id=$after_id .*path=/blkmap-t2130-after" "$T/events.txt" ||
	fail "no cgroup_mkdir of $after (id $after_id)"
grep -q "cgroup_attach_task .*dst_root=0 dst_id=$after_id .*pid=$mover " "$T/events.txt" ||
	fail "no move of $mover into $after"
grep -q "sched_process_fork .*pid=$mover .*child_pid=$child\$" "$T/events.txt" ||
	fail "no fork of $child by $mover"
grep -q "cgroup_rmdir .*root=0 id=$after_id " "$T/events.txt" || fail "no cgroup_rmdir of $after"
if grep -q "cgroup_attach_task .*dst_root=[1-9]" "$T/events.txt"; then
	fail "cgroup v1 hierarchies' moves recorded: $(grep -m1 'dst_root=[1-9]' "$T/events.txt")"
fi
note "dump: $before id $before_id with $sleeper; $after id $after_id, $mover moved, $child forked"
