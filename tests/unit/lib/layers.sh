# The layers of the tree, for the layering checks (sourced by tests/unit/layers*.sh).
# Lowest first: util, out, nl, {state, knowledge, probe, trace, drivers/*}, analysis, cli. A
# layer may use its own layer and any layer below; the middle layers are peers.
layer_rank() {
	case $1 in
	util) echo 0 ;; out) echo 1 ;; nl) echo 2 ;;
	state | knowledge | probe | trace | drivers) echo 3 ;;
	analysis) echo 4 ;; cli) echo 5 ;; *) echo -1 ;;
	esac
}
# The layer of a path is its top folder: ethtune/L/..., include/L/... (also in a subfolder such
# as ethtune/analysis/validate/), drivers/NAME/...; "" outside them.
layer_of() {
	case $1 in
	ethtune/*/* | include/*/*) p=${1#*/}; echo "${p%%/*}" ;;
	drivers/*) echo drivers ;;
	*) echo "" ;;
	esac
}
