// The Foundation value types the decoder makes (`FoundationObject`, `AttributedText`, `FoundationColor`, …) live in
// FoundationValues, shared with KeyedArchive; `import TypedStream` brings them along.
@_exported import FoundationValues
