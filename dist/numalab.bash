# bash completion for numalab: commands, options, experiments and their
# parameters, all read from the installed binary's own --help and list
_numalab()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion || return
	else # without the bash-completion package
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
	fi
	local bin=${words[0]}

	if ((cword == 1)); then
		COMPREPLY=($(compgen -W "$("$bin" --help 2>/dev/null |
			awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on && !seen[$1]++ { print $1 }') --help --version" -- "$cur"))
		return
	fi
	local cmd=${words[1]} exp="" w
	case $prev in
	--db | --web | --token-file | --tls-cert | --tls-key | --worker | --dir | \
		--ca-file | --numalab)
		if declare -F _filedir >/dev/null; then
			_filedir
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return
		;;
	esac
	if [[ $cmd == fleet && cword -eq 2 ]]; then
		COMPREPLY=($(compgen -W "run --help" -- "$cur"))
		return
	fi
	for w in "${words[@]:2:cword-2}"; do
		[[ $w != -* && $w != *=* && $w != run ]] && exp=$w && break
	done
	case $cmd in
	run | estimate | fleet)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$("$bin" $cmd --help 2>/dev/null |
				grep -o -- '--[a-z][a-z-]*' | sort -u)" -- "$cur"))
		elif [[ -z $exp ]]; then
			COMPREPLY=($(compgen -W "$("$bin" list 2>/dev/null | awk '{ print $1 }')" -- "$cur"))
		else
			compopt -o nospace 2>/dev/null
			COMPREPLY=($(compgen -W "$("$bin" run "$exp" --help 2>/dev/null |
				awk '/^  name +type/ { t = 1; next } /^$/ { t = 0 } t && /^  [a-z]/ { print $1 "=" }')" -- "$cur"))
		fi
		;;
	serve | list | topology | rates)
		COMPREPLY=($(compgen -W "$("$bin" $cmd --help 2>/dev/null |
			grep -o -- '--[a-z][a-z-]*' | sort -u)" -- "$cur"))
		;;
	esac
} &&
	complete -F _numalab numalab
