# Guest scenario (busybox sh): the guest kernel crashes on purpose, so that
# tests/vm/run's report of a kernel problem can be tested.
echo c >/proc/sysrq-trigger
sleep 5
