# Sourced by tests/unit/t_scenario.sh and tests/live/t_scenario_caps.sh:
# waiting for a process tree to grow, as a busy machine may take its time.
# shellcheck shell=bash

# children_of PID: the pids of PID's children, once it has any (in 60 s)
children_of() {
	local i
	for i in $(seq 600); do
		pgrep -P "$1" && return 0
		sleep 0.1
	done
	return 1
}
