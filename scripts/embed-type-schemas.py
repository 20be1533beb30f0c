#!/usr/bin/env python3
# Regenerates the Swift files embedding Schemas/system-types.plist and Schemas/ict-types.plist.
# Run from the repository root after editing either schema; UniformTypesTests checks they agree.
import sys
for schema, swift, name, doc in [
  ('Schemas/system-types.plist','Sources/UniformTypes/SystemTypeDeclarations.swift','systemTypeDeclarationsText',
   'The text of `Schemas/system-types.plist`: ICTKit\'s declarations of the\n    /// system\'s types, built in so a relocated program needs no file beside it\n    /// (a test keeps the two the same).'),
  ('Schemas/ict-types.plist','Sources/UniformTypes/ICTTypeDeclarations.swift','ictTypeDeclarationsText',
   'The text of `Schemas/ict-types.plist`: the `.ict` document type\'s\n    /// declarations (docs/ict-format.md section 8), built in (a test keeps the\n    /// two the same).'),
]:
    text=open(schema).read()
    assert text.endswith('\n') and '"""#' not in text
    open(swift,'w').write('extension TypeDeclarationSet {\n    /// %s\n    public static let %s: String = #"""\n%s"""#\n}\n' % (doc, name, text))
