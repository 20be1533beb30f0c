import DocumentFormats
import UniformTypes

/// What an input named by a user is, told before it is opened, so that a
/// tool can pick the reader for it: an `.ict` document, another package
/// directory, a zip archive, or a file or stream to read as a property list.
package enum InputKind: Sendable, Equatable {
    /// `-`: standard input, a stream to read as a property list.
    case standardInput
    /// An `.ict` document (`ICTDocumentFormat.isDocument(atPath:)`): a directory
    /// named `.ict` with its metadata entry.
    case document
    /// A directory named `.ict` without a `ctdocument.metadata` item: a
    /// document to check (which says what it lacks), a package to read.
    case documentWithoutMetadata
    /// Any other directory (a link to one followed), read as a package.
    case package
    /// A regular file that starts as a zip archive does (`PK\3\4`, or
    /// `PK\5\6` for an empty one), such as a zipped package.
    case zipArchive
    /// Anything else: a regular file, a FIFO or device, or a name that is
    /// not there (reading it says why), read as a property list.
    case file

    /// Classifies the input `path` names (`-` is standard input).
    ///
    /// Reads the item's status, and of a regular file its first bytes; of
    /// a directory named `.ict`, the status of its metadata entry. Nothing
    /// is read of a FIFO or device, so a classification never waits.
    package init(classifying path: String) {
        if path == "-" {
            self = .standardInput
        } else if ICTDocumentFormat.isPackage(atPath: path) {
            self = ICTDocumentFormat.isDocument(atPath: path) ? .document : .documentWithoutMetadata
        } else {
            switch ContentSniffer.typeIdentifier(ofItemAtPath: path) {
            case "public.directory": self = .package
            case "public.zip-archive": self = .zipArchive
            default: self = .file
            }
        }
    }

    /// Whether the input is a directory (a document or another package).
    package var isDirectory: Bool { self == .document || self == .documentWithoutMetadata || self == .package }
}
