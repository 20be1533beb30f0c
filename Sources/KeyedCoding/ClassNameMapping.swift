import Dispatch

// @unchecked Sendable: the two tables are private and touched only inside
// `queue.sync` (a serial queue, so one thread at a time); `queue` is a `let`
// and itself thread-safe. (`Mutex` would be checked, but needs macOS 15.)
/// Archived class names given to classes and classes given to names,
/// process-wide (`+[NSKeyedArchiver setClassName:forClass:]`,
/// `+[NSKeyedUnarchiver setClass:forClassName:]`); an archiver's or
/// unarchiver's own mapping comes first.
final class ClassNameMapping: @unchecked Sendable {
    static let shared = ClassNameMapping()

    /// Guards the tables (written from any thread).
    private let queue = DispatchQueue(label: "KeyedCoding.ClassNameMapping")
    private var namesByClass: [ObjectIdentifier: String] = [:]
    private var classesByName: [String: any ICTCoding.Type] = [:]

    func setName(_ name: String?, for type: AnyClass) {
        queue.sync { namesByClass[ObjectIdentifier(type)] = name }
    }

    func name(for type: AnyClass) -> String? {
        queue.sync { namesByClass[ObjectIdentifier(type)] }
    }

    func setClass(_ type: (any ICTCoding.Type)?, forName name: String) {
        queue.sync { classesByName[name] = type }
    }

    func `class`(forName name: String) -> (any ICTCoding.Type)? {
        queue.sync { classesByName[name] }
    }

    /// The name a class is archived under when nothing maps it: `NSObject`
    /// for `ICTObject`, otherwise the module-qualified name
    /// (`MyApp.CTData`), as Foundation names a Swift class without `@objc(Name)`.
    static func defaultName(for type: AnyClass) -> String {
        type == ICTObject.self ? "NSObject" : String(reflecting: type)
    }
}
