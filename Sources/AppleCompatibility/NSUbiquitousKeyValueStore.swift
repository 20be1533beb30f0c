#if !canImport(Darwin)
import Dispatch
import Foundation
import Synchronization
import OrderedCollections
import PropertyList
import UbiquitousKeyValueStore
import UbiquityContainers

/// Apple's iCloud key-value store under its own name, over ICTKit's
/// `KeyValueStore` in the default ubiquity container (`ICT_UBIQUITY_CONTAINER`'s
/// folder, else the configured default), so code written for Apple's
/// platforms — `set`, `synchronize()` at launch, an observer of
/// `didChangeExternallyNotification` — runs with its import changed.
///
/// Without a container the store keeps its values in this process only and
/// `synchronize()` returns false, as Apple's does without an iCloud account.
/// A value that is not a property-list object is a programmer's error (a
/// precondition), as Apple's raises an exception. Changes are posted on a
/// queue of the store's own, as the system posts them off the main thread.
///
/// When the default container's identity changes — its engine's keys
/// replaced, another default container configured, or none left — the
/// store posts `NSUbiquitousKeyValueStoreAccountChange` with the keys whose
/// value changed, as Apple's does when the iCloud account changes: the
/// store then holds the new default container's values, synchronized at
/// once (or, without one, this process's only, starting empty).
open class NSUbiquitousKeyValueStore: NSObject, @unchecked Sendable {
    // @unchecked: `identityWatcher` is set once, in init; the rest is in `state`, a `Mutex`.

    /// Apple's `didChangeExternallyNotification`: another device's change
    /// arrived, the first sync, a quota violation or an account change; its
    /// `userInfo` holds `NSUbiquitousKeyValueStoreChangeReasonKey` and
    /// `NSUbiquitousKeyValueStoreChangedKeysKey`.
    public static let didChangeExternallyNotification = NSNotification.Name("NSUbiquitousKeyValueStoreDidChangeExternallyNotification")

    private static let shared = NSUbiquitousKeyValueStore()

    /// The store shared by the process (Apple's `default`); reads the
    /// containers' configuration and the store's folder when first asked for.
    open class var `default`: NSUbiquitousKeyValueStore { shared }

    /// The store told and asked (nil: `memory`, this process's values only) and its observation.
    private struct State {
        var store: KeyValueStore?
        var observation: KeyValueStoreObservation?
        var memory: [String: PropertyListValue] = [:]
    }

    private let state = Mutex(State())
    private var identityWatcher: UbiquityIdentityWatcher?
    private let queue = DispatchQueue(label: "ICTKit.NSUbiquitousKeyValueStore.notifications")

    /// A store over the default container's; prefer `default`, as Apple's
    /// callers do. Reads every device's file in the container, and watches
    /// the default container's identity (`UbiquityIdentityWatcher`, on the
    /// process's file-event loop).
    public override convenience init() {
        self.init(containers: .current)
    }

    /// A store over the default container of `containers`, following it as
    /// it changes.
    convenience init(containers: UbiquityContainers) {
        self.init(store: NSUbiquitousKeyValueStore.makeStore(of: containers))
        identityWatcher = try? UbiquityIdentityWatcher(containers: containers) { [weak self] _ in
            self?.defaultContainerChanged(containers)
        }
    }

    /// Apple's names over `store`; nil keeps the values in this process only.
    init(store: KeyValueStore?) {
        super.init()
        state.withLock { use(store, in: &$0) }
    }

    /// The store of the default container of `containers`; nil when there is none.
    private static func makeStore(of containers: UbiquityContainers) -> KeyValueStore? {
        ((try? containers.container(identifier: nil)) ?? nil).map { KeyValueStore(container: $0) }
    }

    /// Makes `store` the one told and asked in `state`, posting its changes.
    private func use(_ store: KeyValueStore?, in state: inout State) {
        state.store = store
        state.observation = store?.observe(on: queue) { [weak self] change in self?.post(change) }
    }

    /// Posts `didChangeExternallyNotification` for `change`, with Apple's `userInfo`.
    private func post(_ change: KeyValueStoreChange) {
        NotificationCenter.default.post(
            name: Self.didChangeExternallyNotification, object: self,
            userInfo: [
                NSUbiquitousKeyValueStoreChangeReasonKey: NSNumber(value: change.reason.rawValue),
                NSUbiquitousKeyValueStoreChangedKeysKey: change.changedKeys,
            ])
    }

    /// The default container's identity changed: another container, or none, replaces the store's (a change of
    /// the same container's identity the store tells itself), and the keys whose value changed are posted as
    /// an account change.
    private func defaultContainerChanged(_ containers: UbiquityContainers) {
        let container = (try? containers.container(identifier: nil)) ?? nil
        if let current = state.withLock({ $0.store }), current.container == container { return }
        let next = container.map { KeyValueStore(container: $0) }
        // Synchronized before it is observed, as Apple's store syncs with the new account: what the new
        // container's other devices hold is told once, as this account change, not again at the app's next
        // `synchronize()` as what arrived while it was not running.
        next?.synchronize()
        let before = values()
        let old = state.withLock { state -> KeyValueStore? in
            let old = state.store
            state.memory = [:]
            use(next, in: &state)
            return old
        }
        old?.close()
        let after = values()
        let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
        queue.async { [weak self] in self?.post(KeyValueStoreChange(reason: .accountChange, changedKeys: changed.sorted())) }
    }

    /// Every key's value now.
    private func values() -> [String: PropertyListValue] {
        guard let store = state.withLock({ $0.store }) else { return state.withLock { $0.memory } }
        return Dictionary(uniqueKeysWithValues: store.dictionaryRepresentation.map { ($0.key, $0.value) })
    }

    // MARK: Reading

    /// The value of `aKey` as Foundation's objects (String, NSNumber, Data, Date, arrays, dictionaries); nil for none.
    open func object(forKey aKey: String) -> Any? {
        value(aKey).map(Self.foundationObject)
    }

    /// The string of `aKey`; nil for none or another type.
    open func string(forKey aKey: String) -> String? {
        guard case .string(let text)? = value(aKey) else { return nil }
        return text
    }

    /// The array of `aKey`; nil for none or another type.
    open func array(forKey aKey: String) -> [Any]? {
        object(forKey: aKey) as? [Any]
    }

    /// The dictionary of `aKey`; nil for none or another type.
    open func dictionary(forKey aKey: String) -> [String: Any]? {
        object(forKey: aKey) as? [String: Any]
    }

    /// The data of `aKey`; nil for none or another type.
    open func data(forKey aKey: String) -> Data? {
        guard case .data(let bytes)? = value(aKey) else { return nil }
        return bytes
    }

    /// The integer of `aKey` (a real truncated, a boolean 0 or 1); 0 for none or another type.
    open func longLong(forKey aKey: String) -> Int64 {
        switch value(aKey) {
        case .integer(let number)?: number.int64Value ?? Int64(bitPattern: number.bitPattern)
        case .real(let number)?: Int64(exactly: number.rounded(.towardZero)) ?? 0
        case .real32(let number)?: Int64(exactly: Double(number).rounded(.towardZero)) ?? 0
        case .bool(let flag)?: flag ? 1 : 0
        default: 0
        }
    }

    /// The number of `aKey`; 0 for none or another type.
    open func double(forKey aKey: String) -> Double {
        switch value(aKey) {
        case .integer(let number)?: number.int64Value.map(Double.init) ?? Double(number.bitPattern)
        case .real(let number)?: number
        case .real32(let number)?: Double(number)
        case .bool(let flag)?: flag ? 1 : 0
        default: 0
        }
    }

    /// The boolean of `aKey` (a number not 0 is true); false for none or another type.
    open func bool(forKey aKey: String) -> Bool {
        switch value(aKey) {
        case .bool(let flag)?: flag
        case .integer(let number)?: number.bitPattern != 0
        case .real(let number)?: number != 0
        case .real32(let number)?: number != 0
        default: false
        }
    }

    /// Every key's value as Foundation's objects.
    open var dictionaryRepresentation: [String: Any] {
        values().mapValues(Self.foundationObject)
    }

    // MARK: Changing

    /// Sets `aKey` to a property-list object (nil removes it). A change past
    /// the store's limits is refused and told as `NSUbiquitousKeyValueStoreQuotaViolationChange`.
    open func set(_ anObject: Any?, forKey aKey: String) {
        guard let anObject else {
            removeObject(forKey: aKey)
            return
        }
        guard let value = Self.propertyListValue(anObject) else {
            preconditionFailure("NSUbiquitousKeyValueStore: \(type(of: anObject)) for key \(aKey) is not a property-list object")
        }
        put(value, aKey)
    }

    /// Sets `aKey` to a string (nil removes it).
    open func set(_ aString: String?, forKey aKey: String) { set(aString as Any?, forKey: aKey) }
    /// Sets `aKey` to data (nil removes it).
    open func set(_ aData: Data?, forKey aKey: String) { set(aData as Any?, forKey: aKey) }
    /// Sets `aKey` to an array of property-list objects (nil removes it).
    open func set(_ anArray: [Any]?, forKey aKey: String) { set(anArray as Any?, forKey: aKey) }
    /// Sets `aKey` to a dictionary of property-list objects (nil removes it).
    open func set(_ aDictionary: [String: Any]?, forKey aKey: String) { set(aDictionary as Any?, forKey: aKey) }
    /// Sets `aKey` to an integer.
    open func set(_ value: Int64, forKey aKey: String) { put(.integer(PropertyListInteger(value)), aKey) }
    /// Sets `aKey` to a number.
    open func set(_ value: Double, forKey aKey: String) { put(.real(value), aKey) }
    /// Sets `aKey` to a boolean.
    open func set(_ value: Bool, forKey aKey: String) { put(.bool(value), aKey) }

    /// Removes `aKey`; the removal wins over older values on every device.
    open func removeObject(forKey aKey: String) {
        if let store = state.withLock({ $0.store }) {
            store.removeValue(forKey: aKey)
        } else {
            _ = state.withLock { $0.memory.removeValue(forKey: aKey) }
        }
    }

    /// Writes this device's changes and reads the other devices' now; false
    /// when there is no container, or it cannot be written.
    @discardableResult
    open func synchronize() -> Bool {
        state.withLock { $0.store }?.synchronize() ?? false
    }

    private func value(_ key: String) -> PropertyListValue? {
        guard let store = state.withLock({ $0.store }) else { return state.withLock { $0.memory[key] } }
        return store.value(forKey: key)
    }

    private func put(_ value: PropertyListValue, _ key: String) {
        if let store = state.withLock({ $0.store }) {
            // A refused change is told to observers as a quota violation, as Apple's store tells it.
            try? store.set(value, forKey: key)
        } else {
            state.withLock { $0.memory[key] = value }
        }
    }

    // MARK: Foundation's objects

    /// A property-list value as Foundation's objects.
    private static func foundationObject(_ value: PropertyListValue) -> Any {
        switch value {
        case .string(let text): text
        case .integer(let number): number.int64Value.map { NSNumber(value: $0) } ?? NSNumber(value: number.bitPattern)
        case .real(let number): NSNumber(value: number)
        case .real32(let number): NSNumber(value: number)
        case .bool(let flag): NSNumber(value: flag)
        case .date(let date): date
        case .data(let bytes): bytes
        case .array(let elements): elements.map(foundationObject)
        case .dictionary(let members): Dictionary(uniqueKeysWithValues: members.map { ($0.key, foundationObject($0.value)) })
        case .uid(let number): NSNumber(value: number)
        }
    }

    /// A property-list object as a value; nil for anything else.
    private static func propertyListValue(_ object: Any) -> PropertyListValue? {
        switch object {
        case let text as String: return .string(text)
        case let flag as Bool where type(of: object) == Bool.self: return .bool(flag)
        case let number as Int: return .integer(PropertyListInteger(number))
        case let number as Int64: return .integer(PropertyListInteger(number))
        case let number as Int32: return .integer(PropertyListInteger(Int64(number)))
        case let number as UInt64: return .integer(PropertyListInteger(number))
        case let number as Double: return .real(number)
        case let number as Float: return .real32(number)
        case let date as Date: return .date(date)
        case let bytes as Data: return .data(bytes)
        case let number as NSNumber:
            // An NSNumber made from a Bool says so by its type encoding.
            let encoding = String(cString: number.objCType)
            if encoding == "c" { return .bool(number.boolValue) }
            if encoding == "d" || encoding == "f" { return .real(number.doubleValue) }
            return .integer(PropertyListInteger(number.int64Value))
        case let elements as [Any]:
            var values: [PropertyListValue] = []
            for element in elements {
                guard let value = propertyListValue(element) else { return nil }
                values.append(value)
            }
            return .array(values)
        case let members as [String: Any]:
            var values = OrderedDictionary<String, PropertyListValue>()
            for key in members.keys.sorted() {
                guard let value = propertyListValue(members[key]!) else { return nil }
                values[key] = value
            }
            return .dictionary(values)
        default: return nil
        }
    }
}

/// Apple's key of `didChangeExternallyNotification`'s `userInfo` holding why the store changed (an `NSNumber`).
public let NSUbiquitousKeyValueStoreChangeReasonKey = "NSUbiquitousKeyValueStoreChangeReasonKey"
/// Apple's key of `didChangeExternallyNotification`'s `userInfo` holding the keys that changed (an array of strings).
public let NSUbiquitousKeyValueStoreChangedKeysKey = "NSUbiquitousKeyValueStoreChangedKeysKey"
/// Another device's change arrived (Apple's value, 0).
public var NSUbiquitousKeyValueStoreServerChange: Int { KeyValueStoreChange.Reason.serverChange.rawValue }
/// The first sync of a device that had values of its own (Apple's value, 1).
public var NSUbiquitousKeyValueStoreInitialSyncChange: Int { KeyValueStoreChange.Reason.initialSyncChange.rawValue }
/// A change was refused: it would pass the store's limits (Apple's value, 2).
public var NSUbiquitousKeyValueStoreQuotaViolationChange: Int { KeyValueStoreChange.Reason.quotaViolationChange.rawValue }
/// The identity the container syncs as changed (Apple's value, 3).
public var NSUbiquitousKeyValueStoreAccountChange: Int { KeyValueStoreChange.Reason.accountChange.rawValue }
#endif
