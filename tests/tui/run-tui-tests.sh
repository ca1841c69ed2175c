#!/bin/sh
# End-to-end tests of the explorer in a real terminal: each case starts the
# built binary inside a detached tmux session (own socket, so parallel runs
# do not collide), sends keys, captures the pane and asserts on the text
# after each action. Polls with a timeout instead of fixed sleeps; every
# session is killed at the end. Prints "N passed, M failed"; exit 1 on any
# failure (also without tmux or the binary: a check that cannot run is not a pass).
#
# Env: DIPPM (the binary), SAMPLES_DIR (default: ../../samples from here).

here=$(cd "$(dirname "$0")" && pwd)
DIPPM=${DIPPM:-$here/../../dippm}
SAMPLES_DIR=${SAMPLES_DIR:-$here/../../samples}
TINY=$SAMPLES_DIR/tiny_cnn.json

if ! command -v tmux >/dev/null 2>&1; then echo "FAIL: tmux not installed (./setup.sh check installs it)"; exit 1; fi
if [ ! -x "$DIPPM" ]; then echo "FAIL: $DIPPM not built"; exit 1; fi
if [ ! -f "$TINY" ]; then echo "FAIL: $TINY missing"; echo "0 passed, 1 failed"; exit 1; fi

SOCK="dippm-tui-$$"
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/dippm-tui.XXXXXX")
export XDG_STATE_HOME="$TMPD/state"   # history goes here, not into $HOME
T() { tmux -L "$SOCK" -f /dev/null "$@"; }
cleanup() { T kill-server 2>/dev/null; rm -rf "$TMPD"; }
trap cleanup EXIT INT TERM
# A session that lives as long as the test keeps the server up: killing the
# last session stops tmux's server, and a new-session that reaches a server
# still shutting down fails ("server exited unexpectedly") on a loaded machine.
T new-session -d -s keep "sleep 100000" || { echo "tmux could not start"; exit 1; }

pass=0; fail=0; case_name=""; case_ok=1
begin() { case_name=$1; case_ok=1; }
bad() { echo "  FAIL [$case_name]: $*"; case_ok=0; }
end() {
    if [ $case_ok -eq 1 ]; then pass=$((pass + 1)); echo "ok - $case_name";
    else fail=$((fail + 1)); echo "not ok - $case_name"; echo "  --- screen ---"; screen | sed 's/^/  | /'; fi
    T kill-session -t ui 2>/dev/null
}

# start [ENV=VAL ...] -- ARGS: a shell in a 100x30 window runs dippm ARGS;
# after dippm exits the shell stays, so the prompt can be checked.
start() {
    envs=""
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    T kill-session -t ui 2>/dev/null
    T new-session -d -s ui -x 100 -y 30 "env -i PATH=\"$PATH\" HOME=\"$TMPD\" TERM=screen XDG_STATE_HOME=\"$XDG_STATE_HOME\" LANG=C.UTF-8 PS1='PROMPT\$ ' $envs sh" ||
        bad "tmux new-session failed"
    # the shell first (a loaded machine can take a while), then dippm
    t=0
    while [ $t -lt 200 ] && ! screen | grep -qF 'PROMPT$'; do sleep 0.05; t=$((t + 1)); done
    T send-keys -t ui "$DIPPM $* 2>$TMPD/stderr; echo EXIT=\$?" Enter
}
screen() { T capture-pane -p -t ui 2>/dev/null; }
line() { screen | sed -n "${1}p"; }           # line N of the pane (1-based)
keys() { T send-keys -t ui "$@"; }
# wait_for TEXT [SECONDS]: poll the pane until TEXT (fixed string) appears
wait_for() {
    t=0; lim=$(( ${2:-8} * 20 ))
    while [ $t -lt $lim ]; do
        screen | grep -qF -- "$1" && return 0
        sleep 0.05; t=$((t + 1))
    done
    bad "timed out waiting for '$1'"; return 1
}
# wait_gone TEXT: until TEXT disappears
wait_gone() {
    t=0
    while [ $t -lt 100 ]; do
        screen | grep -qF -- "$1" || return 0
        sleep 0.05; t=$((t + 1))
    done
    bad "'$1' did not go away"; return 1
}
expect() { screen | grep -qF -- "$1" || bad "expected '$1' on screen"; }
expect_re() { screen | grep -qE -- "$1" || bad "expected /$1/ on screen"; }
expect_not() { ! screen | grep -qF -- "$1" || bad "did not expect '$1' on screen"; }
expect_line() { line "$1" | grep -qF -- "$2" || bad "line $1 is '$(line "$1")', expected '$2'"; }

# ---------------------------------------------------------------------------
begin "starts, draws header, predictions, table and F-key bar at 100x30"
start -- "$TINY"
wait_for "F10Quit" && {
    expect_line 1 "tiny_cnn.json"
    expect_line 1 "nodes 8"
    expect_line 2 "batch 1"
    expect_line 2 "A100-SXM4-40GB"
    expect "Latency"
    expect "GNN prediction"
    expect "conv1"
    expect "[1,16,32,32]"
    expect_line 30 "F1Help"
}
end

begin "without GNN weights the header says the figures are the teacher's"
start DIPPM_WEIGHTS=/nonexistent/none.dpw -- "$TINY"
wait_for "F10Quit" && {
    expect "teacher estimate (no GNN weights)"
    expect "Latency (teacher)"
}
end

begin "+ doubles the batch, - halves it; shapes follow"
start -- "$TINY"
wait_for "F10Quit" && {
    keys +
    wait_for "batch 2 " && expect "[2,16,32,32]"
    keys + +
    wait_for "batch 8 " && expect "[8,16,32,32]"
    keys -
    wait_for "batch 4 " && expect "[4,16,32,32]"
}
end

begin "a configuration change moves the latency figure"
start -- "$TINY"
wait_for "F10Quit" && {
    before=$(line 3)
    keys ":batch 512" Enter
    wait_for "batch 512 "
    after=$(line 3)
    [ "$before" != "$after" ] || bad "latency line unchanged: $after"
    echo "$after" | grep -q "Latency" || bad "line 3 is not the latency line: $after"
}
end

begin "invalid value: error in the status line, last good configuration kept"
start -- "$TINY"
wait_for "F10Quit" && {
    keys ":batch 16" Enter
    wait_for "batch 16 "
    keys ":batch 0" Enter
    wait_for "expected an integer" && expect_line 2 "batch 16 "
    keys ":set height=abc" Enter
    wait_for "height=abc: expected an integer" && expect_line 2 "height=32"
    keys ":gpu nosuch" Enter
    wait_for "unknown GPU 'nosuch'" && expect_line 2 "A100-SXM4-40GB"
}
end

begin ":gpu h100 changes the header; :set height=64 reshapes"
start -- "$TINY"
wait_for "F10Quit" && {
    keys ":gpu h100" Enter
    wait_for "H100" && expect_line 2 "H100"
    keys ":set height=64" Enter
    wait_for "[1,16,64,32]" && expect_line 2 "height=64"
    keys ":precision fp16" Enter
    wait_for "fp16"
}
end

begin "F6 / < > sort the table"
start -- "$TINY"
wait_for "F10Quit" && {
    keys F6
    wait_for "sorted by Name, ascending" && {
        first=$(line 8 | awk '{print $2}')
        [ "$first" = "add" ] || bad "first row after sorting by name is '$first', expected add"
    }
    keys ":sort macs" Enter
    wait_for "MACs▼" && {
        first=$(line 8 | awk '{print $2}')
        [ "$first" = "conv2" ] || bad "biggest MACs row is '$first', expected conv2"
    }
    keys I
    wait_for "MACs▲"
}
end

begin "/ searches incrementally, n jumps, Enter opens the detail"
start -- "$TINY"
wait_for "F10Quit" && {
    keys / r e l u
    wait_for "Search: relu"
    keys Enter n Enter
    wait_for "Relu relu2" && expect "FLOPs"
    keys Escape
    wait_for "Time share"
}
end

begin "\\ filters by op or name"
start -- "$TINY"
wait_for "F10Quit" && {
    keys '\' c o n v '|' f c
    wait_for "3 of 8 layers match" && { expect "conv2"; expect_not "relu1"; }
    keys Enter
    keys '\' C-u Enter
    wait_for "relu1"
}
end

begin "F5 graph view draws the residual branch with box characters"
start -- "$TINY"
wait_for "F10Quit" && {
    keys F5
    wait_for "p producer" && {
        # a node's time-share marker stands between the lanes and its op
        expect_re "├─●  [░▒▓█ ] Conv conv2"
        expect_re "●─┘  [░▒▓█ ] Add add"
    }
    keys z
    wait_for "body  [3 nodes"
    keys F5
    wait_for "Time share"
}
end

begin "Setup tab: Left/Right step a field, Enter edits it; g jumps to a node"
start -- "$TINY"
wait_for "F10Quit" && {
    keys F2
    wait_for "Configuration" && {
        keys Down Down Right          # gpu -> mig -> precision, next value
        wait_for "tf32" && expect_line 2 "tf32"
        keys Down Down Down Enter     # quant -> runtime -> batch: the command line opens
        wait_for ":batch"
        keys 8 Enter
        wait_for "batch 8 "
    }
    keys F5 g f c Enter
    wait_for "node 7: fc (Gemm)"
}
end

begin "resize to 80x24 keeps the F-key bar; tiny window shows a notice"
start -- "$TINY"
wait_for "F10Quit" && {
    T resize-window -t ui -x 80 -y 24
    wait_for "F10Quit" && expect_line 24 "F1Help"
    T resize-window -t ui -x 30 -y 8
    wait_for "dippm needs 40x12"
    T resize-window -t ui -x 120 -y 40
    wait_for "F10Quit" && expect_line 40 "F1Help"
}
end

begin "F1 help comes from the action table; Esc returns"
start -- "$TINY"
wait_for "F10Quit" && {
    keys F1
    wait_for "Quit the explorer" && expect "F10, q"
    keys Escape
    wait_for "Time share"
}
end

begin "sweep tab charts batch 1..1024 with MIG capacity lines"
start -- "$TINY"
wait_for "F10Quit" && {
    keys 3
    wait_for "Latency vs batch" && expect "1024"
    keys m m
    wait_for "Peak memory vs batch" && expect "3g.20gb"
}
end

begin "pin and compare show deltas"
start -- "$TINY"
wait_for "F10Quit" && {
    keys P
    wait_for "pin 1:"
    keys ":batch 64" Enter
    keys C
    wait_for "compare on" && expect "(+"
}
end

begin "export csv refuses to overwrite without !"
start -- "$TINY"
wait_for "F10Quit" && {
    keys ":export csv $TMPD/l.csv" Enter
    wait_for "wrote 8 layers"
    keys ":export csv $TMPD/l.csv" Enter
    wait_for "exists"
    [ "$(wc -l < "$TMPD/l.csv")" -eq 9 ] || bad "csv has $(wc -l < "$TMPD/l.csv") lines, expected 9"
}
end

begin "q quits and restores the terminal (echo, canonical mode, main screen)"
start -- "$TINY"
wait_for "F10Quit" && {
    keys q
    wait_for "EXIT=0" && {
        [ "$(T display -p -t ui '#{alternate_on}')" = "0" ] || bad "still on the alternate screen"
        keys "stty -a | tr ' ' '\\n' | grep -x -e echo -e icanon | sort | tr '\\n' ' '; echo" Enter
        wait_for "echo icanon"
        [ -s "$TMPD/stderr" ] && bad "stderr not empty: $(cat "$TMPD/stderr")"
    }
}
end

begin "after shrinking, no stale character in the bottom-right cell"
start -- zoo:resnet:depth=18      # at 100x30 row 24 column 80 is inside a table row's bar
wait_for "F10Quit" 10 && {
    T resize-window -t ui -x 80 -y 24
    wait_for "F10Quit"
    sleep 0.3
    last=$(screen | sed -n 24p)
    [ "${#last}" -le 79 ] || bad "row 24 is ${#last} characters wide: '$last'"
    keys C-l
    sleep 0.3
    last=$(screen | sed -n 24p)
    [ "${#last}" -le 79 ] || bad "Ctrl-L left row 24 ${#last} wide: '$last'"
}
end

begin "the search prompt does not show an old status message"
start -- "$TINY"
wait_for "F10Quit" && {
    keys ":gpu nosuch" Enter
    wait_for "unknown GPU"
    keys /
    wait_for "Search:"
    expect_not "unknown GPU"
    keys Escape
}
end

begin "completion: :gpu h100: lists the slices, :open zoo: the families"
start -- "$TINY"
wait_for "F10Quit" && {
    keys ":gpu h100:" Tab Tab
    wait_for "h100:1g.10gb"
    keys Escape
    keys ":open zoo:" Tab
    wait_for "zoo:resnet"
    keys Escape
}
end

begin "Ctrl-Z suspends to the shell; fg redraws"
start -- "$TINY"
wait_for "F10Quit" && {
    keys C-z
    wait_for "PROMPT\$" && {
        keys "fg" Enter
        wait_for "F10Quit" && expect "conv1"
    }
    keys q
}
end

begin "SIGTERM restores the terminal too"
start -- "$TINY"
wait_for "F10Quit" && {
    # the dippm child of this session's shell (not any other dippm running)
    shell=$(T display -p -t ui '#{pane_pid}')
    pid=$(pgrep -P "$shell" || true)
    if [ -n "$pid" ]; then
        kill -TERM "$pid"
        wait_for "EXIT=143" && {
            [ "$(T display -p -t ui '#{alternate_on}')" = "0" ] || bad "still on the alternate screen"
            keys "stty -a | tr ' ' '\\n' | grep -x -e echo -e icanon | sort | tr '\\n' ' '; echo" Enter
            wait_for "echo icanon"
        }
    else
        bad "could not find the dippm process"
    fi
}
end

begin "SIGHUP exits 129 (128 + the signal), not 130"
start -- "$TINY"
wait_for "F10Quit" && {
    shell=$(T display -p -t ui '#{pane_pid}')
    pid=$(pgrep -P "$shell" || true)
    if [ -n "$pid" ]; then kill -HUP "$pid"; wait_for "EXIT=129"; else bad "no dippm process"; fi
}
end

begin "Ctrl-C (SIGINT) leaves cleanly and restores the terminal"
start -- "$TINY"
wait_for "F10Quit" && {
    keys C-c
    wait_for "EXIT=130" && {
        [ "$(T display -p -t ui '#{alternate_on}')" = "0" ] || bad "still on the alternate screen"
        keys "stty -a | tr ' ' '\\n' | grep -x -e echo -e icanon | sort | tr '\\n' ' '; echo" Enter
        wait_for "echo icanon"
    }
}
end

begin "37: Ctrl-C in the : line and the filter line cancels the line, not the explorer"
start -- "$TINY"
wait_for "F10Quit" && {
    keys ":" "batch 64"
    wait_for ":batch 64"
    keys C-c
    wait_gone ":batch 64"
    keys F4 "conv"
    wait_for "Filter: conv"
    keys C-c
    wait_gone "Filter: conv"
    expect_not "EXIT="
    expect_line 2 "batch 1 "
    keys q
    wait_for "EXIT=0"
}
end

if [ -f "$SAMPLES_DIR/resnet50.onnx" ]; then
begin "ResNet-50 ONNX sample: torchvision's 25.6 M params and 4.09 GMACs; batch follows"
start -- "$SAMPLES_DIR/resnet50.onnx"
wait_for "F10Quit" 15 && {
    expect_line 1 "params 25.6 M"
    expect_line 1 "MACs 4.09 G"
    keys +
    wait_for "batch 2 " && expect_line 1 "MACs 8.18 G"
    keys F5
    wait_for "Add /layer1/layer1.0/Add"
}
end
else
    echo "FAIL - ResNet-50 case (samples/resnet50.onnx missing)"; fail=$((fail + 1))
fi

begin "NO_COLOR and a non-UTF-8 locale: ASCII boxes, no colour"
start NO_COLOR=1 LANG=C LC_ALL=C -- "$TINY"
wait_for "F10Quit" && {
    keys F5
    wait_for "p producer" && { expect_re "\+-o  [.:*# ] Conv conv2"; expect_re "o-\+  [.:*# ] Add add"; expect_not "●"; }
    colors=$(T capture-pane -p -e -t ui | grep -c '\[3[1-7]m' || true)
    [ "$colors" -eq 0 ] || bad "colour escapes on $colors lines with NO_COLOR"
    keys F5
    wait_for "Time share"
    # the time-share bars of unselected rows: '#' cells, not reverse video
    row=$(T capture-pane -p -e -t ui | grep -a 'relu1' | head -1)
    echo "$row" | grep -q '#' || bad "no bar cells on the relu1 row: $row"
    printf '%s' "$row" | grep -q "$(printf '\033')\[7m" && bad "bar drawn in reverse video: $row"
}
end

begin "history persists across runs; Tab completes"
start -- "$TINY"
wait_for "F10Quit" && {
    keys ":batch 32" Enter
    wait_for "batch 32 "
    keys ":prec" Tab
    wait_for ":precision"
    keys "fp1" Tab
    wait_for ":precision fp16"
    keys Escape q
    wait_for "unsaved what-if changes"   # asked once
    keys q
    wait_for "EXIT=0"
    [ -f "$XDG_STATE_HOME/dippm/history" ] && grep -qx "batch 32" "$XDG_STATE_HOME/dippm/history" ||
        bad "history file lacks 'batch 32'"
}
end

begin "37: Home from a terminal its TERM does not describe is Home, not a tab switch"
# tmux sends ESC [ 1 ~ for Home; TERM=xterm's terminfo expects ESC O H
start TERM=xterm -- "$TINY"
wait_for "F10Quit" && {
    keys 7
    wait_for "Where the numbers come from" && {
        keys Down Down Down
        wait_gone "Where the numbers come from"
        keys Home
        wait_for "Where the numbers come from"
        expect_not "Output shape"          # not the Layers tab that a 1 opens
    }
}
end

begin "37: theme mono in the preferences draws without colours"
mkdir -p "$TMPD/.config/dippm"
colours() { T capture-pane -e -p -t ui 2>/dev/null | grep -c "$(printf '\033')\[[0-9;]*3[0-7][;m]"; }
start -- "$TINY"
wait_for "F10Quit" && [ "$(colours)" -gt 0 ] || bad "no colours without preferences (the check would prove nothing)"
keys F10
wait_for "EXIT="
printf 'theme mono\n' > "$TMPD/.config/dippm/explorer"
start -- "$TINY"
wait_for "F10Quit" && { [ "$(colours)" -eq 0 ] || bad "theme mono still draws $(colours) coloured lines"; }
keys F10
rm -f "$TMPD/.config/dippm/explorer"
end

if "$DIPPM" zoo list >/dev/null 2>&1 && "$DIPPM" info zoo:resnet:depth=18 >/dev/null 2>&1; then
begin "zoo template: hyperparameters editable in the Setup tab"
start -- zoo:resnet:depth=18
wait_for "F10Quit" 10 && {
    keys F2
    wait_for "Template hyperparameters" && expect "depth"
    keys ":set depth=34" Enter
    wait_for "depth=34" 10
}
end
else
    echo "FAIL - zoo template case (zoo:resnet not available in this build)"; fail=$((fail + 1))
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
