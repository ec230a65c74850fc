#!/usr/bin/env bash
# The Scan step of the GitHub Action (action.yml): one svc scan that prints annotations (or the text report) and
# writes SARIF and the markdown job summary from the same run (--report). It always exits 0 and leaves svc's exit
# code in the step output `exit-code`, so the SARIF upload runs before the action's last step fails the job with it.
# Reads the action's inputs from SVC_ACTION_* variables, and GITHUB_ACTION_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY
# and RUNNER_TEMP as the runner sets them.
set -uo pipefail

# The step outputs are written once, on the way out: exit code 2 unless svc ran, so a script error never passes the job.
code=2
sarif_written=''
trap 'printf "exit-code=%s\nsarif-file=%s\n" "$code" "$sarif_written" >>"$GITHUB_OUTPUT"' EXIT

for name in FAIL_ON_PARTIAL UPLOAD_SARIF ANNOTATE JOB_SUMMARY; do
  var="SVC_ACTION_$name"
  case "${!var:-}" in
    true | false) ;;
    *)
      input=$(echo "$name" | tr 'A-Z_' 'a-z-')
      echo "::error title=svc::input $input must be 'true' or 'false', not '${!var:-}'"
      exit 0
      ;;
  esac
done

# Targets are split on spaces and new lines and never glob-expanded.
set -f
read -r -d '' -a targets <<<"${SVC_ACTION_TARGETS:-}" || true
set +f
if [[ ${#targets[@]} -eq 0 ]]; then
  echo "::error title=svc::input targets is empty: give at least one directory, package spec or MCP config"
  exit 0
fi

args=(scan "${targets[@]}" --mode "${SVC_ACTION_MODE:-fast}" --fail-on "${SVC_ACTION_FAIL_ON:-high}")
[[ $SVC_ACTION_FAIL_ON_PARTIAL == true ]] && args+=(--fail-on-partial)
[[ -n ${SVC_ACTION_BASELINE:-} ]] && args+=(--baseline "$SVC_ACTION_BASELINE")
if [[ $SVC_ACTION_ANNOTATE == true ]]; then args+=(--format github); else args+=(--format text); fi
sarif=${SVC_ACTION_SARIF_FILE:-}
[[ -n $sarif ]] && args+=(--report "sarif=$sarif")
summary="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/svc-summary-$$.md"
[[ $SVC_ACTION_JOB_SUMMARY == true ]] && args+=(--report "markdown=$summary")

echo "svc ${args[*]}"
node "$GITHUB_ACTION_PATH/packages/cli/bin/svc.js" "${args[@]}"
code=$?
[[ -n $sarif && -f $sarif ]] && sarif_written=$sarif

if [[ -f $summary ]]; then
  # GitHub refuses a step summary over 1 MiB; the SARIF report has every finding.
  limit=$((1024 * 1024 - 200))
  if [[ $(wc -c <"$summary") -gt $limit ]]; then
    head -c "$limit" "$summary" >>"$GITHUB_STEP_SUMMARY"
    printf '\n\n… cut at GitHub'"'"'s 1 MiB job summary limit; the SARIF report has every finding.\n' >>"$GITHUB_STEP_SUMMARY"
  else
    cat "$summary" >>"$GITHUB_STEP_SUMMARY"
  fi
  rm -f "$summary"
fi
exit 0
