// The coder classes' names before 0.13. "ICT" now names the .ict format only (issue 43), so the classes are
// named for what they do; these aliases keep code written against the old names compiling for one release.

/// The name of ``ArchiveCoder`` before 0.13.
@available(*, deprecated, renamed: "ArchiveCoder")
public typealias ICTCoder = ArchiveCoder

/// The name of ``ArchiveCoding`` before 0.13.
@available(*, deprecated, renamed: "ArchiveCoding")
public typealias ICTCoding = ArchiveCoding

/// The name of ``ArchiveSecureCoding`` before 0.13.
@available(*, deprecated, renamed: "ArchiveSecureCoding")
public typealias ICTSecureCoding = ArchiveSecureCoding

/// The name of ``KeyedObjectArchiver`` before 0.13.
@available(*, deprecated, renamed: "KeyedObjectArchiver")
public typealias ICTKeyedArchiver = KeyedObjectArchiver

/// The name of ``KeyedObjectUnarchiver`` before 0.13.
@available(*, deprecated, renamed: "KeyedObjectUnarchiver")
public typealias ICTKeyedUnarchiver = KeyedObjectUnarchiver

/// The name of ``ArchivableObject`` before 0.13.
@available(*, deprecated, renamed: "ArchivableObject")
public typealias ICTObject = ArchivableObject

/// The name of ``ArchivedNumber`` before 0.13.
@available(*, deprecated, renamed: "ArchivedNumber")
public typealias ICTNumber = ArchivedNumber

/// The name of ``ArchivedNull`` before 0.13.
@available(*, deprecated, renamed: "ArchivedNull")
public typealias ICTNull = ArchivedNull
