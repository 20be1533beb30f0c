// The Foundation value types `ArchivedValue` carries (`AttributedText`, `FoundationColor`, `FoundationFont`, …) live in
// FoundationValues, shared with TypedStream; `import KeyedArchive` brings them along.
@_exported import FoundationValues
