import OrderedCollections
import PropertyList
import SystemSupport
import UbiquityContainers

/// The store's state and its reading, merging and writing; every member is
/// used under `KeyValueStoreCore.lock`. Kept apart from the thread and the
/// observers (`KeyValueStoreCore`) and from the public API (`KeyValueStore`).
struct KeyValueStoreState {
    /// The store's folder in the container, `CONTAINER/.ictkit-kvstore`.
    let folder: String
    let container: UbiquityContainer
    let limits: UbiquitousKeyValueStoreLimits
    /// Checks each key and value set against `limits`.
    let validator: UbiquitousKeyValueStoreValidator
    /// A device token given in place of the container's identity token (tests), nil to ask the container.
    let fixedToken: String?
    var clock: HybridLogicalClock

    /// This device's identity token; nil when the container has none (no engine identity here).
    var token: String?
    /// This device's file as this process last read or wrote it: its own changes, and the other devices' it
    /// wrote with them. The changes made here since are in `unwritten`, which wins over it.
    var own: KeyValueStoreFile
    /// The stamp of this device's file when this process last read or wrote it.
    var ownStamp: FileStamp?
    /// The changes made here and not yet written, by key (each also in `merged` until another wins), and
    /// whether `own.initialSyncDone` is unwritten.
    var unwritten: [String: KeyValueStoreEntry] = [:]
    var flagDirty = false
    /// Other devices' files by path: the stamp last looked at, and the contents last read whole.
    var others: [String: (stamp: FileStamp, file: KeyValueStoreFile?)] = [:]
    /// Files skipped, by path, with the stamp they were skipped at.
    var skipped: [String: (stamp: FileStamp, warning: KeyValueStoreWarning)] = [:]
    /// The winning entry of each key (removals too).
    var merged: [String: KeyValueStoreEntry] = [:]
    /// The live keys' bytes as the limits count them (`UbiquitousKeyValueStoreValidator.size(of:)` plus the key's UTF-8).
    var totalSize = 0
    var liveCount = 0

    init(container: UbiquityContainer, limits: UbiquitousKeyValueStoreLimits, deviceToken: String?, clock: HybridLogicalClock) {
        self.container = container
        self.limits = limits
        validator = UbiquitousKeyValueStoreValidator(limits: limits)
        self.fixedToken = deviceToken
        self.clock = clock
        folder = PathName.join(PathName.trimmingTrailingSlashes(container.folderText), KeyValueStore.folderName)
        token = deviceToken ?? UbiquityContainers.identityToken(of: container)
        own = KeyValueStoreFile(device: token ?? "")
    }

    /// The entry the container's identity depends on
    /// (`UbiquityContainers.identityToken(of:)`), as the folder holding it
    /// and its name there: `cert.pem` in the Syncthing home, or a plain
    /// container's folder in its parent (its identity is the folder's device
    /// and inode); nil with a device token given, or a Syncthing engine whose
    /// home is not named.
    var identityEntry: (folder: String, name: String)? {
        guard fixedToken == nil else { return nil }
        switch container.engine {
        case .syncthing(let home, _): return home.map { ($0, "cert.pem") }
        case .folder: return PathName.split(container.folderText)
        }
    }

    /// This device's file, `FOLDER/TOKEN.plist`; nil without an identity.
    var ownPath: String? { token.map { folder + "/" + $0 + ".plist" } }

    /// The live value of `key`.
    func value(forKey key: String) -> PropertyListValue? { merged[key]?.value }

    // MARK: Reading

    /// Reads what changed on disk — this device's file written by another
    /// process, other devices' files — and merges it: the change to tell
    /// (nil when no key's value changed and the identity did not), and the
    /// files newly skipped, to warn of.
    ///
    /// With `othersToo` false, only this device's file is read: the store's
    /// state when this device last wrote, against which the first full read
    /// tells what other devices changed since.
    mutating func refresh(othersToo: Bool = true) -> (change: KeyValueStoreChange?, warnings: [KeyValueStoreWarning]) {
        var accountChanged = false
        if fixedToken == nil {
            let current = UbiquityContainers.identityToken(of: container)
            if current != token {
                _ = try? flush()
                token = current
                own = KeyValueStoreFile(device: current ?? "")
                ownStamp = nil
                unwritten = [:]
                accountChanged = true
            }
        }
        var warnings: [KeyValueStoreWarning] = []
        let names = (try? Directory.entries(atPath: folder)) ?? []
        var seen: Set<String> = []
        for entry in names {
            let name = entry.name
            guard !name.hasPrefix("."), name.hasSuffix(".plist") else { continue }
            let path = folder + "/" + name
            guard othersToo || path == ownPath else { continue }
            seen.insert(path)
            guard let stamp = FileStamp(itemAt: path) else { continue }
            if path == ownPath {
                guard stamp != ownStamp else { continue }
                switch Self.read(path) {
                case .success(let file):
                    absorb(file)
                    ownStamp = stamp
                    skipped[path] = nil
                case .failure(let error):
                    // Written again whole at the next write, from what this process holds.
                    flagDirty = token != nil
                    if skipped[path]?.stamp != stamp {
                        let warning = KeyValueStoreWarning(path: path, message: error.keyed)
                        skipped[path] = (stamp, warning)
                        warnings.append(warning)
                    }
                }
                continue
            }
            if let known = others[path], known.stamp == stamp { continue }
            if let skip = skipped[path], skip.stamp == stamp { continue }
            switch Self.read(path) {
            case .success(let file):
                others[path] = (stamp, file)
                skipped[path] = nil
            case .failure(let error):
                // Skipped until it changes; what it held when last read whole still counts.
                let warning = KeyValueStoreWarning(path: path, message: error.keyed)
                skipped[path] = (stamp, warning)
                warnings.append(warning)
            }
        }
        if othersToo {
            for path in others.keys where !seen.contains(path) { others[path] = nil }
            for path in skipped.keys where !seen.contains(path) { skipped[path] = nil }
        }
        let changed = remerge()
        let othersSeen = others.values.contains { $0.file != nil }
        var reason = KeyValueStoreChange.Reason.serverChange
        if accountChanged {
            reason = .accountChange
        } else if othersSeen, !own.initialSyncDone {
            // The first sight of another device's values: the initial sync, for a device with values of its own.
            if !own.entries.isEmpty || !unwritten.isEmpty { reason = .initialSyncChange }
        }
        if othersSeen, !own.initialSyncDone, token != nil {
            own.initialSyncDone = true
            flagDirty = true
        }
        guard accountChanged || !changed.isEmpty else { return (nil, warnings) }
        return (KeyValueStoreChange(reason: reason, changedKeys: changed.sorted()), warnings)
    }

    /// Takes the entries of this device's file as another process wrote it
    /// where they win over what this process has (a change made here and
    /// not yet written then has nothing left to write).
    private mutating func absorb(_ file: KeyValueStoreFile) {
        for (key, entry) in file.entries where (unwritten[key] ?? own.entries[key]).map({ entry.wins(over: $0) }) ?? true {
            own.entries[key] = entry
            unwritten[key] = nil
        }
        if file.initialSyncDone { own.initialSyncDone = true }
    }

    /// Computes `merged` again from this device's entries, the changes made
    /// here and the others', returning the keys whose live value changed.
    /// Notes every time seen on the clock.
    private mutating func remerge() -> Set<String> {
        var next: [String: KeyValueStoreEntry] = [:]
        next.reserveCapacity(merged.count)
        func consider(_ key: String, _ entry: KeyValueStoreEntry) {
            clock.observe(entry.time)
            if let current = next[key], !entry.wins(over: current) { return }
            next[key] = entry
        }
        for (key, entry) in own.entries { consider(key, entry) }
        for (key, entry) in unwritten { consider(key, entry) }
        for (_, known) in others {
            guard let file = known.file else { continue }
            for (key, entry) in file.entries { consider(key, entry) }
        }
        var changed: Set<String> = []
        for (key, entry) in next where merged[key]?.value != entry.value { changed.insert(key) }
        for (key, entry) in merged where next[key] == nil && entry.value != nil { changed.insert(key) }
        merged = next
        totalSize = 0
        liveCount = 0
        for (key, entry) in merged {
            guard let value = entry.value else { continue }
            liveCount += 1
            totalSize += key.utf8.count + UbiquitousKeyValueStoreValidator.size(of: value)
        }
        return changed
    }

    /// A store file read whole: a regular file (a link, folder or FIFO is
    /// refused without opening it for long), at most `KeyValueStoreFile.maximumSize`.
    static func read(_ path: String) -> Result<KeyValueStoreFile, KeyValueStoreError> {
        let bytes: [UInt8]
        do throws(SystemCallError) {
            let file = try OpenFile(path: path, options: [.noFollow, .nonBlocking])
            let info = try file.info()
            guard info.kind == .regular else {
                return .failure(KeyValueStoreError(.unreadable, pathText: path, "is \(info.kind.phrase), not a store file"))
            }
            guard let read = try file.readToEnd(limit: KeyValueStoreFile.maximumSize) else {
                return .failure(KeyValueStoreError(.unreadable, pathText: path, "is larger than \(KeyValueStoreFile.maximumSize) bytes"))
            }
            bytes = read
        } catch {
            let reason = error.code == ErrorNumber.symbolicLinkLoop ? "is a symbolic link, not a store file" : "cannot be read: \(error.reason)"
            return .failure(KeyValueStoreError(.unreadable, pathText: path, reason))
        }
        do throws(KeyValueStoreError) {
            return .success(try KeyValueStoreFile(decoding: bytes, path: path))
        } catch {
            return .failure(error)
        }
    }

    // MARK: Changing

    /// Sets (or, for nil, removes) `key` here, to be written by `flush()`.
    ///
    /// Costs a walk of the value and of the one it replaces (their sizes:
    /// the store's count and total are kept as changes are made, not
    /// counted again), one look-up and in-place update of `merged`, and one
    /// update of `unwritten`.
    ///
    /// - Throws: `KeyValueStoreError` `.quotaViolation` naming the limit
    ///   when the change would pass one; nothing is changed then.
    mutating func set(_ value: PropertyListValue?, forKey key: String) throws(KeyValueStoreError) {
        let index = merged.index(forKey: key)
        let old = index.flatMap { merged.values[$0].value }
        let oldSize = old.map { key.utf8.count + UbiquitousKeyValueStoreValidator.size(of: $0) } ?? 0
        if let value {
            let (findings, newSize) = validator.findings(forKey: key, value: value)
            if let finding = findings.first { throw KeyValueStoreError(.quotaViolation, pathText: folder, key: key, finding.message) }
            if newSize > limits.maximumTotalSize {
                throw KeyValueStoreError(
                    .quotaViolation, pathText: folder, key: key,
                    "\(newSize) bytes of keys and values; the store holds at most \(limits.maximumTotalSize)")
            }
            if old == nil, liveCount + 1 > limits.maximumKeyCount {
                throw KeyValueStoreError(
                    .quotaViolation, pathText: folder, key: key,
                    "would be key \(liveCount + 1); the iCloud key-value store holds at most \(limits.maximumKeyCount)")
            }
            if totalSize - oldSize + newSize > limits.maximumTotalSize {
                throw KeyValueStoreError(
                    .quotaViolation, pathText: folder, key: key,
                    "would make \(totalSize - oldSize + newSize) bytes of keys and values; the store holds at most \(limits.maximumTotalSize)")
            }
            totalSize += newSize - oldSize
            if old == nil { liveCount += 1 }
        } else {
            guard old != nil else { return }
            totalSize -= oldSize
            liveCount -= 1
        }
        let entry = KeyValueStoreEntry(value: value, time: clock.tick(), device: own.device)
        if let index {
            merged.values[index] = entry
        } else {
            merged[key] = entry
        }
        unwritten[key] = entry
    }

    /// Writes this device's changes not yet written: under the lock of this
    /// device's file (other processes of this device write it too), reads
    /// it again, keeps the winner of each key, and writes the whole merged
    /// store in one rename (`AtomicFileWriter`). Returns the keys another process of this
    /// device had changed, whose live value changed here.
    ///
    /// - Throws: `KeyValueStoreError` `.noContainer` without an identity,
    ///   `.io` when the folder cannot be made, the lock not had, or the file
    ///   not written (the changes stay to write).
    mutating func flush() throws(KeyValueStoreError) -> Set<String> {
        guard !unwritten.isEmpty || flagDirty else { return [] }
        guard let path = ownPath else {
            throw KeyValueStoreError(.noContainer, pathText: container.folderText, "the container's sync engine has no identity on this device")
        }
        try makeFolder()
        let lock: ItemLock
        do throws(ItemLock.Failure) {
            lock = try ItemLock.acquire(path, .exclusive, timeout: 60)
        } catch {
            throw KeyValueStoreError(.io, pathText: path, "cannot lock it: \(error.description)")
        }
        defer { lock.release() }
        var changed: Set<String> = []
        for _ in 0..<8 {
            let stamp = FileStamp(itemAt: path)
            if stamp != nil, stamp != ownStamp, case .success(let file) = Self.read(path) { absorb(file) }
            changed.formUnion(remerge())
            // The whole merged store: a device whose own file is lost gets its changes back from the others'.
            own.entries = OrderedDictionary(uniqueKeysWithValues: merged.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            let bytes = try own.encoded(path: path)
            do throws(AtomicFileWriter.Failure) {
                var options = AtomicFileWriter.Options()
                options.specialFiles = .refused
                options.listingFolderOnce = false
                let writer = try AtomicFileWriter(path: path, options: options)
                let written: Result<Void, AtomicFileWriter.Failure> = bytes.withUnsafeBytes { raw in
                    Result { () throws(AtomicFileWriter.Failure) in try writer.write(raw) }
                }
                try written.get()
                try writer.commit(expecting: stamp)
            } catch {
                // Another writer (the sync engine bringing this device's file back) put one in place: read it and try again.
                if error.changedSinceRead { continue }
                throw KeyValueStoreError(.io, pathText: path, "cannot write it: \(error.description)")
            }
            ownStamp = FileStamp(itemAt: path)
            unwritten.removeAll(keepingCapacity: true)
            flagDirty = false
            return changed
        }
        throw KeyValueStoreError(.io, pathText: path, "another program kept replacing it; the changes are kept to write again")
    }

    /// Makes the store's folder when it is not there.
    ///
    /// - Throws: `KeyValueStoreError` `.io` when it cannot be made, or is not a folder.
    func makeFolder() throws(KeyValueStoreError) {
        if let info = try? FileInfo.of(path: folder, followingLink: false) {
            guard info.kind == .directory else { throw KeyValueStoreError(.io, pathText: folder, "is \(info.kind.phrase), not the store's folder") }
            return
        }
        do throws(SystemCallError) {
            try Directory.make(atPath: folder, permissions: 0o755)
        } catch {
            guard error.isAlreadyExisting else { throw KeyValueStoreError(.io, pathText: folder, "cannot make the store's folder: \(error.reason)") }
        }
    }
}

extension KeyValueStoreError {
    /// The message with the key path inside the file, for a warning naming the file.
    var keyed: String { key.isEmpty ? message : "at \(key): \(message)" }
}
