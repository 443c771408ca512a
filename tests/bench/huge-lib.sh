# shellcheck shell=bash
# The huge-page pool for fio's --iomem=shmhuge, shared by the fio benches
# (probe-bench, sweep-bench, group-bench, copyto-bench): nvmond's engine keeps
# its buffers on 2 MiB (transparent) huge pages, so fio gets huge-page buffers
# too, from the hugetlb pool, which the bench raises while it runs (as root)
# and puts back after.
#
#   . "$(dirname "$0")/huge-lib.sh"
#   huge_init PAGES      # what one fio run needs; remembers the pool's size
#   trap 'huge_restore; …' EXIT
#   huge_raise || …      # enough free pages now? (raise it again before each
#                        # fio run: the pool is the machine's, another process
#                        # may have shrunk it since)

huge_kb=$(awk '/^Hugepagesize:/ {print $2}' /proc/meminfo)

# huge_pages_for BYTES JOBS: pages for JOBS buffers of BYTES each, one more
# per job (fio rounds its region up), and two spare
huge_pages_for() {
	echo $(($2 * (($1 / 1024 + huge_kb - 1) / huge_kb + 1) + 2))
}

huge_init() {
	huge_need=$1
	huge_was=$(cat /proc/sys/vm/nr_hugepages)
}

huge_restore() {
	if [ -n "${huge_was:-}" ] && [ "$(cat /proc/sys/vm/nr_hugepages)" != "$huge_was" ]; then
		echo "$huge_was" > /proc/sys/vm/nr_hugepages
	fi
}

# huge_raise: enough free huge pages for one fio run, or return 1
huge_raise() {
	local free total
	free=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
	if [ "$free" -lt "$huge_need" ] && [ -w /proc/sys/vm/nr_hugepages ]; then
		total=$(cat /proc/sys/vm/nr_hugepages)
		echo $((total + huge_need - free)) > /proc/sys/vm/nr_hugepages 2> /dev/null || true
		free=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
	fi
	[ "$free" -ge "$huge_need" ]
}
