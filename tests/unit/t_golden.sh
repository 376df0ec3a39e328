#!/bin/bash
# Whole outputs of report, folded, annotate and diff on recordings kept in
# tests/golden/data, against tests/golden/expected (see tests/golden/cases).
exec "$(dirname "$0")/../golden/golden.sh"
