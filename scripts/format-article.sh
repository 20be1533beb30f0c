#!/usr/bin/env bash
# The .ict format has one reference, docs/ict-format.md. DocumentFormats's DocC
# article DocumentFormat.md is made from it by this script (its title and
# abstract, then the reference's text after its own title), never edited by hand.
#   scripts/format-article.sh          writes the article
#   scripts/format-article.sh --check  exits 1 when the article is not what the reference makes (make lint)
set -euo pipefail
cd "$(dirname "$0")/.."
source=docs/ict-format.md
article=Sources/DocumentFormats/DocumentFormats.docc/DocumentFormat.md
made=$(mktemp)
trap 'rm -f "$made"' EXIT
{
  printf '# The .ict document format\n\n'
  printf 'The on-disk format of an `.ict` document, entry by entry and key by key:\n'
  printf 'what the original app wrote, and what ICTKit reads and writes.\n\n'
  printf '<!-- Made from docs/ict-format.md by scripts/format-article.sh: edit that file, then run the script. -->\n'
  # The reference after its first line (its title).
  tail -n +2 "$source"
} >"$made"
if [[ "${1:-}" == "--check" ]]; then
  if ! cmp -s "$made" "$article"; then
    echo "format-article.sh: $article is not what $source makes; run scripts/format-article.sh" >&2
    diff -u "$article" "$made" | head -20 >&2 || true
    exit 1
  fi
  exit 0
fi
cp "$made" "$article"
