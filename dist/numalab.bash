# bash completion for numalab: commands, options, experiments and their
# parameters, all read from the installed binary's own --help and list
_numalab()
{
	local cur prev words cword
	_init_completion || return
	local bin=${words[0]}

	if ((cword == 1)); then
		COMPREPLY=($(compgen -W "$("$bin" --help 2>/dev/null |
			awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }') --help --version" -- "$cur"))
		return
	fi
	local cmd=${words[1]} exp="" w
	case $prev in
	--db | --web | --token-file | --tls-cert | --tls-key | --worker | --dir | \
		--ca-file | --numalab)
		_filedir
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
			compopt -o nospace
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
