import SystemSupport

// @unchecked Sendable: the two tables are private and touched only inside
// `lock.withLock`; `lock` is a `let` and itself thread-safe. (`Mutex` would
// be checked, but needs macOS 15.)
/// Archived class names given to classes and classes given to names,
/// process-wide (`+[NSKeyedArchiver setClassName:forClass:]`,
/// `+[NSKeyedUnarchiver setClass:forClassName:]`); an archiver's or
/// unarchiver's own mapping comes first.
final class ClassNameMapping: @unchecked Sendable {
    static let shared = ClassNameMapping()

    /// Guards the tables (written from any thread).
    private let lock = ThreadLock()
    private var namesByClass: [ObjectIdentifier: String] = [:]
    private var classesByName: [String: any ArchiveCoding.Type] = [:]

    func setName(_ name: String?, for type: AnyClass) {
        lock.withLock { namesByClass[ObjectIdentifier(type)] = name }
    }

    func name(for type: AnyClass) -> String? {
        lock.withLock { namesByClass[ObjectIdentifier(type)] }
    }

    func setClass(_ type: (any ArchiveCoding.Type)?, forName name: String) {
        lock.withLock { classesByName[name] = type }
    }

    func `class`(forName name: String) -> (any ArchiveCoding.Type)? {
        lock.withLock { classesByName[name] }
    }

    /// The name a class is archived under when nothing maps it: `NSObject`
    /// for `ArchivableObject`, otherwise the module-qualified name
    /// (`MyApp.CTData`), as Foundation names a Swift class without `@objc(Name)`.
    static func defaultName(for type: AnyClass) -> String {
        type == ArchivableObject.self ? "NSObject" : String(reflecting: type)
    }
}
