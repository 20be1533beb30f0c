/// Syncthing's conflict copies.
///
/// Source: syncthing/syncthing, `lib/model/folder_sendrecv.go`,
/// `func conflictName(name, lastModBy string)`: the name's extension
/// (`filepath.Ext`, from the last dot) is cut off, then
/// `time.Now().Format(".sync-conflict-20060102-150405-") + lastModBy + ext`
/// is appended, `lastModBy` being the short device ID (the first 7
/// characters of the device ID, base32 `A–Z2–7`) of the device that made the
/// losing change, and the time the local clock of the device renaming it.
/// `isConflict` there is a substring test for `.sync-conflict-`; the
/// documentation (docs.syncthing.net, "Conflicting Changes") names the form
/// `<filename>.sync-conflict-<date>-<time>-<modifiedBy>.<ext>`. Syncthing
/// renames directories the same way, so a package synced as a folder gets
/// `Friend.sync-conflict-20261123-101500-ABCDEF7.ict`.
enum SyncthingConflictName {
    static let tag = ".sync-conflict-"

    /// The conflict name in `name`, or nil.
    static func parse(_ name: String) -> ConflictName? {
        guard let tagRange = ConflictNameText.lastRange(of: tag, in: name[...]) else { return nil }
        let stem = name[..<tagRange.lowerBound]
        let afterTag = name[tagRange.upperBound...]
        guard let date = ConflictNameText.compactDateTime(afterTag) else { return nil }
        let afterDate = afterTag.unicodeScalars.dropFirst(15)
        guard afterDate.first == "-" else { return nil }
        let deviceAndExtension = Substring(afterDate.dropFirst())
        let device = deviceAndExtension.prefix { $0 != "." }
        let ext = deviceAndExtension[device.endIndex...]
        guard !device.isEmpty, device.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) }),
            ConflictNameText.isExtension(ext),
            // `filepath.Ext` takes everything from the last dot: with no extension
            // the name had no dot, and only a name such as `.hidden` is all extension.
            ext.isEmpty ? !stem.isEmpty && !stem.contains(".") : true
        else { return nil }
        return ConflictName(originalName: String(stem) + ext, tool: .syncthing, date: date, device: String(device))
    }
}
