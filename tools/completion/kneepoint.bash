# bash completion for kneepoint: verbs, each verb's options and the values of options with a fixed
# set of choices. The lists come from the CLI itself (`kneepoint --complete` prints the verbs,
# `kneepoint --complete VERB` the verb's options from its Boost.Program_options description), so
# they cannot drift from it. Installed as share/bash-completion/completions/kneepoint; for a build
# tree: source tools/completion/kneepoint.bash. Needs no bash-completion helpers.

# _kneepoint_options PROGRAM VERB: the lines of `PROGRAM --complete VERB`, cached per verb.
declare -gA _kneepoint_cache 2>/dev/null || true
_kneepoint_options() {
  local key="$1 $2"
  if [[ -z ${_kneepoint_cache[$key]+set} ]]; then
    _kneepoint_cache[$key]=$("$1" --complete "$2" 2>/dev/null)
  fi
  printf '%s\n' "${_kneepoint_cache[$key]}"
}

_kneepoint() {
  local prog=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev=
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  COMPREPLY=()
  if ((COMP_CWORD == 1)); then
    local verbs
    verbs=$("$prog" --complete 2>/dev/null)
    COMPREPLY=($(compgen -W "$verbs --help --version --list-kinds" -- "$cur"))
    return 0
  fi
  local verb=${COMP_WORDS[1]} lines line name values
  lines=$(_kneepoint_options "$prog" "$verb")
  [[ -z $lines ]] && return 0
  # The value of the option before the cursor: its choices, else file names.
  if [[ $prev == --* ]]; then
    while IFS= read -r line; do
      name=${line%%$'\t'*}
      [[ $name == "$prev" && $line == *$'\t'* ]] || continue
      values=${line#*$'\t'}
      if [[ $values == '*' ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
        compopt -o filenames 2>/dev/null
      else
        COMPREPLY=($(compgen -W "$values" -- "$cur"))
      fi
      return 0
    done <<< "$lines"
  fi
  if [[ $cur == -* ]]; then
    local names=()
    while IFS= read -r line; do names+=("${line%%$'\t'*}"); done <<< "$lines"
    COMPREPLY=($(compgen -W "${names[*]}" -- "$cur"))
    return 0
  fi
  COMPREPLY=($(compgen -f -- "$cur"))  # positional arguments are files or folders
  compopt -o filenames 2>/dev/null
  return 0
}
complete -F _kneepoint kneepoint
