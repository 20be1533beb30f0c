/// A class whose instances are written into and read from keyed archives by
/// an `ArchiveCoder`: the counterpart of Foundation's `NSCoding`, so a class's
/// `init?(coder:)` and `encode(with:)` port from Apple platforms line for line.
public protocol ArchiveCoding: AnyObject {
    /// Decodes an instance from the fields `coder` reads; nil when the
    /// fields do not make one (say so with `coder.failWithError(_:)`).
    init?(coder: ArchiveCoder)

    /// Writes the instance's fields into `coder`.
    func encode(with coder: ArchiveCoder)
}

/// A class that decodes safely from untrusted archives (Foundation's
/// `NSSecureCoding`): every object it decodes it asks for by class. A coder
/// that `requiresSecureCoding` writes and reads only such classes.
public protocol ArchiveSecureCoding: ArchiveCoding {
    /// True when the class decodes securely.
    static var supportsSecureCoding: Bool { get }
}

/// The root class of archivable classes, archived as `NSObject` (the last
/// name of every `$classes` chain Apple writes), as Foundation's `NSObject`.
open class ArchivableObject {
    /// Makes an object.
    public init() {}
}
