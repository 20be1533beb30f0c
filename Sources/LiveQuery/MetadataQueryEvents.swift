import ConflictVersions
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the engine brings its state in line with the disk: searching a
/// folder, looking at one name again after an event, settling, rescanning.
/// Every function here runs under the engine's `lock`.
extension MetadataQueryEngine {
    // MARK: Events

    /// Applies a batch of events: each name they touch looked at again (a
    /// name renamed into place told at once, others left to settle), each
    /// package they touch left to settle; after an overflow, a rescan.
    func process(_ events: [DirectoryWatcher.Event]) {
        guard !events.contains(where: { $0.change == .overflowed }) else {
            rescan()
            return
        }
        let now = monotonicNow()
        var touched: [(folder: String, name: String, movedIn: Bool)] = []
        var touchedIndex = PathDictionary<Int>()
        for event in events {
            switch watched[event.watch] {
            case .folder(let folder)?:
                if event.name.isEmpty {
                    // A scope itself went: its items went with it, and nothing more is watched there, which
                    // the query says. (Another folder's going is its parent's event.)
                    if event.change == .folderGone, roots.contains(folder), folderWatches[folder] == event.watch {
                        removeFolder(folder)
                        problems.append(
                            MetadataQueryError(
                                pathText: folder, "the folder was removed or renamed away; nothing in it is watched any more", isScopeGone: true))
                    }
                    continue
                }
                let movedIn = event.change == .appeared && event.cookie != 0
                let path = Self.join(folder, event.name)
                if let index = touchedIndex[path] {
                    touched[index].movedIn = touched[index].movedIn || movedIn
                } else {
                    touchedIndex[path] = touched.count
                    touched.append((folder, event.name, movedIn))
                }
            case .package(let itemPath)?:
                guard !event.name.isEmpty else { continue }
                if items[itemPath] != nil || settling[itemPath] != nil {
                    let (folder, name) = PathName.split(itemPath)
                    settling[itemPath] = Settling(deadline: now + settleSeconds, folder: folder, name: name)
                }
            case nil:
                continue
            }
        }
        for name in touched { examine(folder: name.folder, name: name.name, atOnce: name.movedIn, now: now) }
    }

    /// Tells the items whose last event is `settleSeconds` old, as they are now.
    func settleDue(now: Double) {
        for (path, entry) in settling where entry.deadline <= now {
            settling.removeValue(forKey: path)
            examine(folder: entry.folder, name: entry.name, atOnce: true, now: now)
        }
    }

    /// After the kernel lost events: every scope searched again, and the
    /// difference from what was known held to tell.
    func rescan() {
        let known = items
        let knownWatches = watched
        let heldBefore = held
        items = [:]
        watched = [:]
        folderWatches = [:]
        packageWatches = [:]
        conflicts = [:]
        settling = [:]
        for root in roots { scanFolder(root) }
        held = heldBefore
        for watch in knownWatches.keys where watched[watch] == nil { watcher.unwatch(watch) }
        for (path, was) in known {
            if let item = items[path] {
                if item != was { held.change(item) }
            } else {
                held.remove(was)
            }
        }
        for (path, item) in items where known[path] == nil { held.add(item) }
    }

    // MARK: Looking at a name

    /// Looks at `name` in `folder` as it is now: a matching file or package
    /// is an item (told at once with `atOnce`, else when it settles), a
    /// folder is searched, a conflict copy marks its original, anything
    /// else (gone, a link to a folder, a device) is no item.
    func examine(folder: String, name: String, atOnce: Bool, now: Double) {
        guard !Self.isSyncTemporary(name) else { return }
        let path = Self.join(folder, name)
        if let copy = ConflictName(parsing: name) {
            let exists = (try? FileInfo.of(path: path, followingLink: false)) != nil
            noteConflictCopy(name, of: Self.join(folder, copy.originalName), exists: exists)
            return
        }
        let info = try? FileInfo.of(path: path, followingLink: false)
        var kind = info?.kind
        if kind == .symbolicLink { kind = (try? FileInfo.of(path: path))?.kind }
        let isPackage = kind == .directory && isPackageName(name)
        if info?.kind != .directory || isPackage, folderWatches[path] != nil { removeFolder(path) }
        if kind == .regular || isPackage {
            itemAppeared(
                folder: folder, name: name, isDirectory: isPackage, isLink: info?.kind == .symbolicLink, atOnce: atOnce, now: now, seen: info)
        } else {
            removeItem(at: path)
            if info?.kind == .directory, folderWatches[path] == nil { scanFolder(path) }
        }
    }

    /// A file or package is at `folder/name`: made an item now, or left to
    /// settle. `seen` is what `lstat` said of it a moment ago, if anything.
    private func itemAppeared(
        folder: String, name: String, isDirectory: Bool, isLink: Bool, atOnce: Bool, now: Double, seen: FileInfo? = nil
    ) {
        let path = Self.join(folder, name)
        guard predicate.matchesName(name), predicate.matchesType(contentType(of: name, isDirectory: isDirectory), in: registry) else {
            removeItem(at: path)
            return
        }
        if atOnce {
            settling.removeValue(forKey: path)
            if let item = makeItem(path: path, name: name, seen: seen) { setItem(item) } else { removeItem(at: path) }
        } else {
            // Watch a new package at once, so that its entries' events keep it settling.
            if isDirectory, !isLink, packageWatches[path] == nil { watchPackageFolder(path, of: path) }
            settling[path] = Settling(deadline: now + settleSeconds, folder: folder, name: name)
        }
    }

    /// A conflict copy `name` of the item at `original` appeared or went.
    private func noteConflictCopy(_ name: String, of original: String, exists: Bool) {
        var copies = conflicts[original] ?? []
        if exists { copies.insert(name) } else { copies.remove(name) }
        conflicts[original] = copies.isEmpty ? nil : copies
        if var item = items[original], item.hasUnresolvedConflicts != Self.hasConflicts(copies: copies, stamp: item.stamp) {
            item.hasUnresolvedConflicts.toggle()
            setItem(item)
        }
    }

    // MARK: Items

    /// Records `item` as it is now: added, or changed when it differs from what was known.
    func setItem(_ item: MetadataItem) {
        if let was = items[item.pathString] {
            guard was != item else { return }
            items[item.pathString] = item
            held.change(item)
        } else {
            items[item.pathString] = item
            held.add(item)
        }
    }

    /// Forgets the item at `path` (and its package's watches), holding its removal to tell.
    func removeItem(at path: String) {
        settling.removeValue(forKey: path)
        unwatchPackage(path)
        guard let was = items.removeValue(forKey: path) else { return }
        held.remove(was)
    }

    /// Forgets the folder at `path` and everything found under it: its items removed, its watches ended.
    func removeFolder(_ path: String) {
        for itemPath in Array(items.keys) + Array(settling.keys) where PathName.isInside(itemPath, folder: path) && !PathName.same(itemPath, path) {
            removeItem(at: itemPath)
        }
        for (folder, watch) in folderWatches where PathName.isInside(folder, folder: path) {
            folderWatches.removeValue(forKey: folder)
            if watched[watch] == .folder(folder) {
                watched.removeValue(forKey: watch)
                watcher.unwatch(watch)
            }
        }
        for original in conflicts.keys where PathName.isInside(original, folder: path) && !PathName.same(original, path) {
            conflicts.removeValue(forKey: original)
        }
    }

    /// The item at `path` as it is now (a package watched, its entries
    /// summed); nil when it is gone. `seen`, what `lstat` said of it just
    /// before (while gathering), spares asking again.
    private func makeItem(path: String, name: String, seen: FileInfo? = nil) -> MetadataItem? {
        guard let info = seen ?? (try? FileInfo.of(path: path, followingLink: false)) else { return nil }
        let isLink = info.kind == .symbolicLink
        guard let target = isLink ? try? FileInfo.of(path: path) : info else { return nil }
        let isDirectory = target.kind == .directory
        var stamp = ItemStamp(
            device: target.device, inode: target.inode, size: isDirectory ? 0 : target.size,
            latestModification: Self.nanoseconds(target), birth: FileInfo.birthTime(ofPath: path), entryCount: 0, entriesDigest: 0)
        if isDirectory {
            let watchesBefore = packageWatches[path] ?? []
            packageWatches[path] = nil
            // A package reached through a link is not watched inside: the link could lead anywhere.
            if !isLink { watchPackageFolder(path, of: path) }
            var digest = Hasher()
            summarize(folder: path, of: path, watching: !isLink, into: &stamp, digest: &digest, depth: 0)
            stamp.entriesDigest = digest.finalize()
            // Entries that are conflict copies, or (read only when it has a manifest) a package mixing two saves.
            stamp.packageInConflict =
                stamp.conflictEntryCount > 0
                || (stamp.hasManifest && !isLink && (try? PackageConsistency(ofPackageAt: path))?.isMixedOrMissingEntries == true)
            for watch in watchesBefore.subtracting(packageWatches[path] ?? []) where watched[watch] == .package(path) {
                watched.removeValue(forKey: watch)
                watcher.unwatch(watch)
            }
        }
        return MetadataItem(
            pathString: path, fsName: name, url: URL(fileURLWithPath: path, isDirectory: isDirectory), fsSize: stamp.size,
            creationDate: stamp.birth.map(Self.date), contentChangeDate: Self.date(stamp.latestModification),
            contentType: contentType(of: name, isDirectory: isDirectory),
            hasUnresolvedConflicts: Self.hasConflicts(copies: conflicts[path] ?? [], stamp: stamp),
            isPackage: isDirectory, syncState: syncState(of: path), stamp: stamp,
            documentKind: documentKinds.kind(ofName: name).flatMap { $0.kind.isPackage == isDirectory ? $0 : nil })
    }

    /// Whether an item has unresolved conflicts: conflict copies beside it,
    /// or (a package) entries inside it that are conflict copies of its entries.
    static func hasConflicts(copies: Set<String>, stamp: ItemStamp) -> Bool {
        !copies.isEmpty || stamp.packageInConflict
    }

    /// Adds the package's entries under `folder` to `stamp` (sizes, latest
    /// time, count) and `digest` (names and identities), watching its folders.
    private func summarize(folder: String, of itemPath: String, watching: Bool, into stamp: inout ItemStamp, digest: inout Hasher, depth: Int) {
        // The entries are looked at relative to the open folder: no path walked from the root for each.
        guard let directory = try? OpenFile(path: folder, options: .directory),
            let entries = try? Directory.entries(of: directory.descriptor, path: folder)
        else {
            problems.append(MetadataQueryError(pathText: folder, "cannot list the package's entries"))
            return
        }
        for entry in entries {
            let entryPath = Self.join(folder, entry.name)
            guard let info = try? FileInfo.of(entry.name, in: directory.descriptor, followingLink: false) else { continue }
            stamp.entryCount += 1
            if ConflictName(parsing: entry.name) != nil { stamp.conflictEntryCount += 1 }
            if depth == 0, entry.name == PackageConsistency.manifestName { stamp.hasManifest = true }
            stamp.latestModification = max(stamp.latestModification, Self.nanoseconds(info))
            digest.combine(entry.bytes)
            digest.combine(info.inode)
            digest.combine(info.size)
            digest.combine(Self.nanoseconds(info))
            if info.kind == .regular { stamp.size &+= info.size }  // Sizes of real files: no sum nears Int64's range.
            // Nested folders to a depth no real package has; deeper ones are counted, not searched.
            if info.kind == .directory, depth < 32 {
                if watching { watchPackageFolder(entryPath, of: itemPath) }
                summarize(folder: entryPath, of: itemPath, watching: watching, into: &stamp, digest: &digest, depth: depth + 1)
            }
        }
    }

    private func watchPackageFolder(_ folder: String, of itemPath: String) {
        do throws(DirectoryWatcher.Failure) {
            let watch = try watcher.watch(folder, followingLink: false)
            watched[watch] = .package(itemPath)
            packageWatches[itemPath, default: []].insert(watch)
        } catch  where error.isGone {
            return  // Gone since it was seen: its own event tells that.
        } catch {
            problems.append(MetadataQueryError(pathText: folder, "cannot watch the package for changes: \(error.description)"))
        }
    }

    private func unwatchPackage(_ itemPath: String) {
        for watch in packageWatches.removeValue(forKey: itemPath) ?? [] where watched[watch] == .package(itemPath) {
            watched.removeValue(forKey: watch)
            watcher.unwatch(watch)
        }
    }

    // MARK: Folders

    /// Watches the folder at `path` and makes items of what is in it,
    /// searching its folders in turn (not through links).
    func scanFolder(_ path: String) {
        do throws(DirectoryWatcher.Failure) {
            // A scope given as a link to a folder is followed; a folder met while searching never is.
            let watch = try watcher.watch(path, followingLink: roots.contains(path))
            if case .folder(let earlier)? = watched[watch], earlier != path { folderWatches.removeValue(forKey: earlier) }
            watched[watch] = .folder(path)
            folderWatches[path] = watch
        } catch  where error.isGone {
            return  // Gone since it was seen (renamed away, removed): its own event tells that.
        } catch {
            problems.append(MetadataQueryError(pathText: path, error.description))
        }
        let entries: [DirectoryEntry]
        do throws(SystemCallError) {
            entries = try Directory.entries(atPath: path)
        } catch {
            problems.append(MetadataQueryError(pathText: path, "cannot list the folder: \(error.reason)"))
            return
        }
        var others: [String] = []
        for entry in entries {
            let name = entry.name
            if Self.isSyncTemporary(name) { continue }
            if let copy = ConflictName(parsing: name) {
                conflicts[Self.join(path, copy.originalName), default: []].insert(name)
            } else {
                others.append(name)
            }
        }
        let now = monotonicNow()
        for name in others { examine(folder: path, name: name, atOnce: true, now: now) }
    }

    // MARK: Names

    /// Whether a directory named `name` is a package: the extension of a
    /// registered package kind (`documentKinds`), or a type the registry says
    /// conforms to `com.apple.package`.
    func isPackageName(_ name: String) -> Bool {
        if let dot = name.lastIndex(of: "."), dot != name.startIndex,
            documentKinds.kind(forExtension: name[name.index(after: dot)...])?.isPackage == true
        {
            return true
        }
        return registry.conforms(contentType(of: name, isDirectory: true), to: "com.apple.package")
    }

    func contentType(of name: String, isDirectory: Bool) -> String {
        // The registry identifies a name by its last two extensions only: one look-up per kind of name.
        let key = name.split(separator: ".", omittingEmptySubsequences: false).dropFirst().suffix(2).joined(separator: ".").lowercased()
        if let known = contentTypes[isDirectory]?[key] { return known }
        let identifier = registry.identifyItem(named: name, isDirectory: isDirectory).identifier
        contentTypes[isDirectory, default: [:]][key] = identifier
        return identifier
    }

    /// Whether `name` is a sync tool's file in the making, never an item:
    /// Syncthing's `.syncthing.*.tmp`, Nextcloud's `.~*` and `*.part`, Office's `~$*`.
    static func isSyncTemporary(_ name: String) -> Bool {
        (name.hasPrefix(".syncthing.") && name.hasSuffix(".tmp")) || name.hasPrefix(".~") || name.hasPrefix("~$") || name.hasSuffix(".part")
            // ICTKit's own save temporaries (`.Doc.ict.ict-new-…`, SystemSupport's TemporaryItem), renamed into place or removed.
            || TemporaryItem.target(of: Array(name.utf8)) != nil
    }

    static func join(_ folder: String, _ name: String) -> String { folder == "/" ? "/" + name : folder + "/" + name }

    static func nanoseconds(_ info: FileInfo) -> Int64 {
        info.modificationSeconds &* 1_000_000_000 &+ info.modificationNanoseconds  // Wraps only past the year 2262.
    }

    static func date(_ nanoseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(nanoseconds) / 1e9) }
}
