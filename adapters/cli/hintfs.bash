# bash completion for hintfs and hintfs-ycsb. Commands and options are read
# from the program's own help (hintfs help COMMAND), so they never fall
# behind it; everything else completes as file names.

# The option names in a help text ("  -l,--long ..." gives -l and --long).
_hintfs_options() {
  sed -n 's/^  \(-[^ ]*\).*/\1/p' | tr ',' '\n'
}

# The commands in a help text's Subcommands section.
_hintfs_commands() {
  sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'
}

_hintfs() {
  local program=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} path=() word i help
  # The commands given so far: the words before the cursor that are commands
  # of the one before them.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    [[ $word == -* ]] && continue
    if "$program" help "${path[@]}" 2>/dev/null | _hintfs_commands | grep -qx -- "$word"; then
      path+=("$word")
    fi
  done
  help=$("$program" help "${path[@]}" 2>/dev/null) || help=$("$program" --help 2>/dev/null)
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_hintfs_options <<< "$help")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_hintfs_commands <<< "$help")" -- "$cur"))
  fi
}
complete -o default -F _hintfs hintfs hintfs-ycsb
