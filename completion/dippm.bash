# bash completion for dippm(1): subcommands, their options (from each
# subcommand's option table), GPU names and MIG profiles (--gpu
# NAME:PROFILE), precisions, runtimes, zoo families and their hyperparameters
# (zoo:FAMILY:NAME=VALUE specs and `dippm zoo FAMILY NAME=VALUE`), the
# diffusion pipeline's --vae and --text-encoder models. The lists
# come from the program itself (`dippm __complete WHAT`), so they always match
# the dippm being completed.

# _dippm_run ARGS...: the dippm on the command line (./build/dippm too), or dippm.
_dippm_run()
{
    local prog=${_dippm_prog:-dippm}
    "$prog" "$@" 2>/dev/null
}

# _dippm_reply CUR CANDIDATE...: COMPREPLY = the candidates starting with CUR.
_dippm_reply()
{
    local cur=$1 c
    shift
    COMPREPLY=()
    for c in "$@"; do
        [[ $c == "$cur"* ]] && COMPREPLY+=("$c")
    done
}

# _dippm_trim CUR: bash replaces only the text after the last word-break
# character of the word (':' and '=' by default), so that much of CUR is cut
# from the front of each reply.
_dippm_trim()
{
    local cur=$1 i ch cut=""
    for ((i = ${#cur} - 1; i >= 0; i--)); do
        ch=${cur:i:1}
        if [[ $ch != [[:space:]] && $COMP_WORDBREAKS == *"$ch"* ]]; then
            cut=${cur:0:i+1}
            break
        fi
    done
    [[ -z $cut ]] && return
    for i in "${!COMPREPLY[@]}"; do
        COMPREPLY[i]=${COMPREPLY[i]#"$cut"}
    done
}

# _dippm_lines CMD...: the output of CMD split into an array named lines.
_dippm_lines()
{
    lines=()
    local l
    while IFS= read -r l; do
        [[ -n $l ]] && lines+=("$l")
    done < <("$@")
}

# A zoo:FAMILY[:NAME=VALUE...] spec being typed in cur.
_dippm_zoo_spec()
{
    local cur=$1 lines=() fam rest last
    rest=${cur#zoo:}
    if [[ $rest != *:* ]]; then
        _dippm_lines _dippm_run __complete families
        _dippm_reply "$cur" "${lines[@]/#/zoo:}"
        return
    fi
    fam=${rest%%:*}
    last=${rest##*:}
    _dippm_zoo_param "$fam" "$last" "${cur%"$last"}"
}

# _dippm_zoo_param FAMILY WORD HEAD: a NAME= or NAME=VALUE of FAMILY typed as
# WORD, after HEAD (what comes before it in the word being completed).
_dippm_zoo_param()
{
    local fam=$1 word=$2 head=$3 lines=()
    if [[ $word == *=* ]]; then
        _dippm_lines _dippm_run __complete values "$fam" "${word%%=*}"
        _dippm_reply "$head$word" "${lines[@]/#/$head${word%%=*}=}"
    else
        _dippm_lines _dippm_run __complete params "$fam"
        _dippm_reply "$head$word" "${lines[@]/#/$head}"
        compopt -o nospace 2>/dev/null
    fi
}

# Arguments of `dippm zoo ...`: list/show/sample/FAMILY, then NAME=VALUE.
_dippm_zoo_args()
{
    local cur=$1 n=$2 first=$3 lines=()
    if ((n == 2)); then
        _dippm_lines _dippm_run __complete families
        _dippm_reply "$cur" list show sample "${lines[@]}"
    elif [[ $first == show || $first == sample ]] && ((n == 3)); then
        _dippm_lines _dippm_run __complete families
        [[ $first == sample ]] && lines+=(all)
        _dippm_reply "$cur" "${lines[@]}"
    elif [[ $first != list && $first != show && $first != sample ]]; then
        _dippm_zoo_param "$first" "$cur" ""
    fi
}

# The value of option opt (cur is what is typed of it); returns 1 if opt
# takes no value this completion knows about.
_dippm_option_value()
{
    local opt=$1 cur=$2 lines=()
    case $opt in
    --gpu)
        if [[ $cur == *:* ]]; then
            _dippm_lines _dippm_run __complete profiles "${cur%%:*}"
            _dippm_reply "$cur" "${lines[@]/#/${cur%%:*}:}"
        else
            _dippm_lines _dippm_run __complete gpus
            _dippm_reply "$cur" "${lines[@]}"
        fi ;;
    --precision)
        _dippm_lines _dippm_run __complete precisions
        _dippm_reply "$cur" "${lines[@]}" ;;
    --runtime)
        _dippm_lines _dippm_run __complete runtimes
        _dippm_reply "$cur" "${lines[@]}" ;;
    --quant)
        _dippm_lines _dippm_run __complete quants
        _dippm_reply "$cur" "${lines[@]}" ;;
    --families)
        _dippm_lines _dippm_run __complete families
        local done_part=""
        [[ $cur == *,* ]] && done_part=${cur%,*},
        lines+=(samples)
        _dippm_reply "$cur" "${lines[@]/#/$done_part}"
        compopt -o nospace 2>/dev/null ;;
    --vae | --text-encoder)
        # a zoo: spec (for --text-encoder, the last of a comma list) or, for
        # --text-encoder, one of the text encoders the program knows
        local head="" piece=$cur known=() c
        if [[ $opt == --text-encoder ]]; then
            [[ $cur == *,* ]] && head=${cur%,*}, piece=${cur##*,}
            _dippm_lines _dippm_run __complete text-encoders
            known=("${lines[@]}")
        fi
        _dippm_zoo_spec "$piece"
        for c in "${known[@]}"; do
            [[ $c == "$piece"* && " ${COMPREPLY[*]} " != *" $c "* ]] && COMPREPLY+=("$c")
        done
        COMPREPLY=("${COMPREPLY[@]/#/$head}")
        compopt -o nospace 2>/dev/null ;;
    --weights | --init)
        _dippm_lines compgen -f -X '!*.dpw' -- "$cur"
        local d
        while IFS= read -r d; do lines+=("$d/"); done < <(compgen -d -- "$cur")
        _dippm_reply "$cur" "${lines[@]}"
        compopt -o filenames -o nospace 2>/dev/null ;;
    --samples)
        _dippm_lines compgen -d -- "$cur"
        _dippm_reply "$cur" "${lines[@]}"
        compopt -o filenames 2>/dev/null ;;
    -o | --output | --data | --rows)
        _dippm_lines compgen -f -- "$cur"
        _dippm_reply "$cur" "${lines[@]}"
        compopt -o filenames 2>/dev/null ;;
    *)
        return 1 ;;
    esac
    return 0
}

# Fills COMPREPLY with whole words for the words typed so far (words, set by _dippm).
_dippm_complete()
{
    local lines=() n=$((${#words[@]} - 1)) cur=${words[-1]}
    local _dippm_prog=dippm
    [[ ${words[0]} == */* && -x ${words[0]} ]] && _dippm_prog=${words[0]}
    if ((n == 1)); then
        if [[ $cur == -* ]]; then
            _dippm_reply "$cur" -h --help -V --version
        elif [[ $cur == zoo:* ]]; then
            _dippm_zoo_spec "$cur"
        else
            _dippm_lines _dippm_run __complete subcommands
            _dippm_reply "$cur" "${lines[@]}" zoo:
            local f
            while IFS= read -r f; do COMPREPLY+=("$f"); done < <(compgen -f -- "$cur")
            compopt -o filenames 2>/dev/null
        fi
        return
    fi
    local sub=${words[1]} prev=${words[n - 1]}
    if [[ $cur == --*=* ]]; then
        _dippm_option_value "${cur%%=*}" "${cur#*=}" &&
            _dippm_reply "$cur" "${COMPREPLY[@]/#/${cur%%=*}=}"
        return
    fi
    if [[ $cur == -* || $prev == -* ]]; then
        # the subcommand's options, and those among them that take a value
        local opts=() valued=" " o
        _dippm_lines _dippm_run __complete options "$sub"
        for o in "${lines[@]}"; do
            opts+=("${o%% *}")
            [[ $o == *" "* ]] && valued+="${o%% *} "
        done
        if [[ $cur == -* ]]; then
            _dippm_reply "$cur" "${opts[@]}"
            return
        fi
        if [[ $valued == *" $prev "* ]]; then
            _dippm_option_value "$prev" "$cur"
            return
        fi
    fi
    if [[ $sub == zoo ]]; then
        _dippm_zoo_args "$cur" "$n" "${words[2]}"
    elif [[ $cur == zoo:* ]]; then
        _dippm_zoo_spec "$cur"
    else
        _dippm_lines compgen -f -- "$cur"
        _dippm_reply "$cur" "${lines[@]}"
        compopt -o filenames 2>/dev/null
    fi
}

_dippm()
{
    COMPREPLY=()
    local line=${COMP_LINE:0:COMP_POINT} words=()
    read -ra words <<<"$line"
    [[ $line == *[[:space:]] || ${#words[@]} -eq 0 ]] && words+=("")
    _dippm_complete
    _dippm_trim "${words[-1]}"
}
complete -F _dippm dippm
