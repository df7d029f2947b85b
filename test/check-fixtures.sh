#!/usr/bin/env bash
# The committed fixtures must be exactly what test/fixtures/generate.rb and
# test/builders/generate.rb make with the installed Ruby (MRI is the oracle):
# regenerate into a temporary folder and compare.  Prints "fixtures: N passed,
# N failed".
cd "$(dirname "$0")/.."
exec bash test/regenerate-check.sh fixtures \
	test/fixtures/generate.rb test/builders/generate.rb -- \
	test/builders/builders.tsv test/fixtures/valid.tsv test/fixtures/invalid.tsv \
	test/fixtures/sessions.tsv test/fixtures/big.tsv test/fixtures/big_200k.bin
