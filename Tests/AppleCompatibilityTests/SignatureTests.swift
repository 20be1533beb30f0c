import AppleCompatibility
import Foundation
import Testing

/// Each member issue 13 lists, referenced with Apple's exact signature (from
/// Apple's documentation): a missing or mis-typed member fails to compile.
/// The test itself checks the few values a signature cannot.
struct SignatureTests {
    private func conforms<T: Hashable & Sendable & CustomStringConvertible>(_: T.Type) {}

    @Test func fileWrapperMembersHaveApplesSignatures() {
        let _: (URL, FileWrapper.ReadingOptions) throws -> FileWrapper = FileWrapper.init(url:options:)
        let _: ([String: FileWrapper]) -> FileWrapper = FileWrapper.init(directoryWithFileWrappers:)
        let _: (Data) -> FileWrapper = FileWrapper.init(regularFileWithContents:)
        let _: (URL) -> FileWrapper = FileWrapper.init(symbolicLinkWithDestinationURL:)
        let _: KeyPath<FileWrapper, [String: FileWrapper]?> = \FileWrapper.fileWrappers
        let _: KeyPath<FileWrapper, Data?> = \FileWrapper.regularFileContents
        let _: (FileWrapper) -> (FileWrapper) -> String = FileWrapper.addFileWrapper(_:)
        let _: (FileWrapper) -> (Data, String) -> String = FileWrapper.addRegularFile(withContents:preferredFilename:)
        let _: (FileWrapper) -> (FileWrapper) -> Void = FileWrapper.removeFileWrapper(_:)
        let _: (FileWrapper) -> (FileWrapper) -> String? = FileWrapper.keyForChildFileWrapper(_:)
        let _: (FileWrapper) -> (URL, FileWrapper.WritingOptions, URL?) throws -> Void = FileWrapper.write(to:options:originalContentsURL:)
        let _: (FileWrapper) -> (URL, FileWrapper.ReadingOptions) throws -> Void = FileWrapper.read(from:options:)
        let _: (FileWrapper) -> (URL) -> Bool = FileWrapper.matchesContents(of:)
        let _: ReferenceWritableKeyPath<FileWrapper, String?> = \FileWrapper.filename
        let _: ReferenceWritableKeyPath<FileWrapper, String?> = \FileWrapper.preferredFilename
        let _: ReferenceWritableKeyPath<FileWrapper, [String: Any]> = \FileWrapper.fileAttributes
        let _: KeyPath<FileWrapper, Bool> = \FileWrapper.isDirectory
        let _: KeyPath<FileWrapper, Bool> = \FileWrapper.isRegularFile
        let _: KeyPath<FileWrapper, Bool> = \FileWrapper.isSymbolicLink
        let _: KeyPath<FileWrapper, URL?> = \FileWrapper.symbolicLinkDestinationURL
        let reading: FileWrapper.ReadingOptions = [.immediate, .withoutMapping]
        let writing: FileWrapper.WritingOptions = [.atomic, .withNameUpdating]
        // Apple's raw values (NSFileWrapperReadingImmediate = 1 << 0, …).
        #expect(reading.rawValue == 0b11 && writing.rawValue == 0b11)
        #expect(FileWrapper.ReadingOptions.withoutMapping.rawValue == 2 && FileWrapper.WritingOptions.withNameUpdating.rawValue == 2)
        // The default arguments Apple declares.
        let wrapper = FileWrapper(directoryWithFileWrappers: [:])
        #expect(throws: (any Error).self) { try FileWrapper(url: URL(fileURLWithPath: "/nonexistent")) }
        #expect(throws: (any Error).self) { try wrapper.read(from: URL(fileURLWithPath: "/nonexistent")) }
        #expect(throws: (any Error).self) { try wrapper.write(to: URL(fileURLWithPath: "/nonexistent/x"), originalContentsURL: nil) }
        // An NSObject subclass, as Apple's: it converts to NSObject without a cast.
        let object: NSObject = wrapper
        #expect(object === wrapper)
    }

    #if !canImport(Darwin)
    // Deprecated on macOS since 10.10, so referenced only where it is not.
    @Test func needsToBeUpdatedHasApplesSignature() {
        let _: (FileWrapper) -> (String) -> Bool = FileWrapper.needsToBeUpdated(fromPath:)
        #expect(FileWrapper(regularFileWithContents: Data()).needsToBeUpdated(fromPath: "/nonexistent"))
    }
    #endif

    @Test func utTypeMembersHaveApplesSignatures() {
        conforms(UTType.self)
        let _: (String) -> UTType? = UTType.init(_:)
        let _: (String, UTType) -> UTType? = UTType.init(filenameExtension:conformingTo:)
        let _: (String, UTType) -> UTType? = UTType.init(mimeType:conformingTo:)
        let _: (String, UTTagClass, UTType?) -> UTType? = UTType.init(tag:tagClass:conformingTo:)
        let _: (String, UTTagClass, UTType?) -> [UTType] = UTType.types(tag:tagClass:conformingTo:)
        let _: (String, UTType?) -> UTType = UTType.init(exportedAs:conformingTo:)
        let _: (String, UTType?) -> UTType = UTType.init(importedAs:conformingTo:)
        let _: (UTType) -> (UTType) -> Bool = UTType.conforms(to:)
        let _: (UTType) -> (UTType) -> Bool = UTType.isSubtype(of:)
        let _: (UTType) -> (UTType) -> Bool = UTType.isSupertype(of:)
        let _: KeyPath<UTType, String> = \UTType.identifier
        let _: KeyPath<UTType, Set<UTType>> = \UTType.supertypes
        let _: KeyPath<UTType, [UTTagClass: [String]]> = \UTType.tags
        let _: KeyPath<UTType, String?> = \UTType.preferredFilenameExtension
        let _: KeyPath<UTType, String?> = \UTType.preferredMIMEType
        let _: KeyPath<UTType, String?> = \UTType.localizedDescription
        let _: KeyPath<UTType, Bool> = \UTType.isDeclared
        let _: KeyPath<UTType, Bool> = \UTType.isDynamic
        let _: KeyPath<UTType, Bool> = \UTType.isPublic
        let _: (String) -> UTTagClass = UTTagClass.init(rawValue:)
        // Apple's tag classes are the identifiers of UTTagClassFilenameExtension and UTTagClassMIMEType.
        #expect(UTTagClass.filenameExtension.rawValue == "public.filename-extension")
        #expect(UTTagClass.mimeType.rawValue == "public.mime-type")
        // The default arguments Apple declares.
        #expect(UTType(filenameExtension: "png") == UTType(mimeType: "image/png"))
        #expect(UTType(exportedAs: "com.example.signature-test").identifier == "com.example.signature-test")
        #expect(UTType(importedAs: "com.example.signature-test-imported").identifier == "com.example.signature-test-imported")
    }

    @Test func metadataQueryMembersHaveApplesSignatures() {
        let _: ReferenceWritableKeyPath<NSMetadataQuery, [Any]> = \NSMetadataQuery.searchScopes
        let _: ReferenceWritableKeyPath<NSMetadataQuery, OperationQueue?> = \NSMetadataQuery.operationQueue
        let _: (NSMetadataQuery) -> () -> Bool = NSMetadataQuery.start
        let _: (NSMetadataQuery) -> () -> Void = NSMetadataQuery.stop
        let _: (NSMetadataQuery) -> () -> Void = NSMetadataQuery.disableUpdates
        let _: (NSMetadataQuery) -> () -> Void = NSMetadataQuery.enableUpdates
        let _: KeyPath<NSMetadataQuery, Bool> = \NSMetadataQuery.isStarted
        let _: KeyPath<NSMetadataQuery, Bool> = \NSMetadataQuery.isGathering
        let _: KeyPath<NSMetadataQuery, Bool> = \NSMetadataQuery.isStopped
        let _: KeyPath<NSMetadataQuery, Int> = \NSMetadataQuery.resultCount
        let _: (NSMetadataQuery) -> (Int) -> Any = NSMetadataQuery.result(at:)
        let _: KeyPath<NSMetadataQuery, [Any]> = \NSMetadataQuery.results
        let _: (NSMetadataItem) -> (String) -> Any? = NSMetadataItem.value(forAttribute:)
        let _: KeyPath<NSMetadataItem, [String]> = \NSMetadataItem.attributes
        let _: [NSNotification.Name] = [.NSMetadataQueryDidStartGathering, .NSMetadataQueryDidFinishGathering, .NSMetadataQueryDidUpdate]
        // Apple's string values, which code may compare or log.
        #expect(
            [
                NSMetadataItemFSNameKey, NSMetadataItemDisplayNameKey, NSMetadataItemURLKey, NSMetadataItemPathKey, NSMetadataItemFSSizeKey,
                NSMetadataItemFSCreationDateKey, NSMetadataItemFSContentChangeDateKey, NSMetadataItemContentTypeKey,
                NSMetadataItemContentTypeTreeKey, NSMetadataUbiquitousItemHasUnresolvedConflictsKey, NSMetadataQueryUbiquitousDocumentsScope,
                NSMetadataQueryUpdateAddedItemsKey, NSMetadataQueryUpdateChangedItemsKey, NSMetadataQueryUpdateRemovedItemsKey,
            ] == [
                "kMDItemFSName", "kMDItemDisplayName", "kMDItemURL", "kMDItemPath", "kMDItemFSSize", "kMDItemFSCreationDate",
                "kMDItemFSContentChangeDate", "kMDItemContentType", "kMDItemContentTypeTree", "NSMetadataUbiquitousItemHasUnresolvedConflictsKey",
                "NSMetadataQueryUbiquitousDocumentsScope", "kMDQueryUpdateAddedItems", "kMDQueryUpdateChangedItems", "kMDQueryUpdateRemovedItems",
            ])
        #expect(NSNotification.Name.NSMetadataQueryDidUpdate.rawValue == "NSMetadataQueryDidUpdateNotification")
        let object: NSObject = NSMetadataQuery()
        #expect(object is NSMetadataQuery)
    }
    #if !canImport(Darwin)
    /// Issue 39: `NSFileVersion` with Apple's signatures — optionals where
    /// Apple's return optionals, non-throwing where Apple's are, `isResolved`
    /// settable, an `NSObject` compared with `==` — and the metadata query's
    /// `NSPredicate` and `NSSortDescriptor`.
    @Test func fileVersionMembersHaveApplesSignatures() {
        let _: (URL) -> NSFileVersion? = NSFileVersion.currentVersionOfItem(at:)
        let _: (URL) -> [NSFileVersion]? = NSFileVersion.otherVersionsOfItem(at:)
        let _: (URL) -> [NSFileVersion]? = NSFileVersion.unresolvedConflictVersionsOfItem(at:)
        let _: (URL) throws -> Void = NSFileVersion.removeOtherVersionsOfItem(at:)
        let _: KeyPath<NSFileVersion, URL> = \NSFileVersion.url
        let _: KeyPath<NSFileVersion, String?> = \NSFileVersion.localizedName
        let _: KeyPath<NSFileVersion, String?> = \NSFileVersion.localizedNameOfSavingComputer
        let _: KeyPath<NSFileVersion, Date?> = \NSFileVersion.modificationDate
        let _: KeyPath<NSFileVersion, Bool> = \NSFileVersion.isConflict
        let _: ReferenceWritableKeyPath<NSFileVersion, Bool> = \NSFileVersion.isResolved
        let _: ReferenceWritableKeyPath<NSFileVersion, Bool> = \NSFileVersion.isDiscardable
        let _: KeyPath<NSFileVersion, Bool> = \NSFileVersion.hasLocalContents
        let _: (NSFileVersion) -> (URL, NSFileVersion.ReplacingOptions) throws -> URL = NSFileVersion.replaceItem(at:options:)
        let _: (NSFileVersion) -> () throws -> Void = NSFileVersion.remove
        let _: (UInt) -> NSFileVersion.ReplacingOptions = NSFileVersion.ReplacingOptions.init(rawValue:)
        // Apple's raw value (NSFileVersionReplacingByMoving = 1 << 0).
        #expect(NSFileVersion.ReplacingOptions.byMoving.rawValue == 1)
        let _: (String, [Any]?) -> NSPredicate = NSPredicate.init(format:argumentArray:)
        let _: NSPredicate = NSPredicate(format: "%K LIKE %@", NSMetadataItemFSNameKey, "*.icfnote")
        let _: NSSortDescriptor = NSSortDescriptor(key: NSMetadataItemFSNameKey, ascending: true)
        let _: ReferenceWritableKeyPath<NSMetadataQuery, NSPredicate?> = \NSMetadataQuery.predicate
        let _: ReferenceWritableKeyPath<NSMetadataQuery, [NSSortDescriptor]> = \NSMetadataQuery.sortDescriptors
        // Apple's string values of the ubiquitous item keys and downloading statuses.
        #expect(
            [
                NSMetadataUbiquitousItemIsUploadedKey, NSMetadataUbiquitousItemIsUploadingKey, NSMetadataUbiquitousItemIsDownloadingKey,
                NSMetadataUbiquitousItemPercentDownloadedKey, NSMetadataUbiquitousItemPercentUploadedKey,
                NSMetadataUbiquitousItemDownloadingStatusKey, NSMetadataUbiquitousItemDownloadingErrorKey,
                NSMetadataUbiquitousItemUploadingErrorKey, NSMetadataUbiquitousItemDownloadingStatusCurrent,
                NSMetadataUbiquitousItemDownloadingStatusDownloaded, NSMetadataUbiquitousItemDownloadingStatusNotDownloaded,
            ] == [
                "NSMetadataUbiquitousItemIsUploadedKey", "NSMetadataUbiquitousItemIsUploadingKey", "NSMetadataUbiquitousItemIsDownloadingKey",
                "NSMetadataUbiquitousItemPercentDownloadedKey", "NSMetadataUbiquitousItemPercentUploadedKey",
                "NSMetadataUbiquitousItemDownloadingStatusKey", "NSMetadataUbiquitousItemDownloadingErrorKey",
                "NSMetadataUbiquitousItemUploadingErrorKey", "NSMetadataUbiquitousItemDownloadingStatusCurrent",
                "NSMetadataUbiquitousItemDownloadingStatusDownloaded", "NSMetadataUbiquitousItemDownloadingStatusNotDownloaded",
            ])
        // A missing item has no versions: nil, as Apple's.
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/Note.icfnote")
        #expect(NSFileVersion.currentVersionOfItem(at: missing) == nil)
        #expect(NSFileVersion.otherVersionsOfItem(at: missing) == nil)
        #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: missing) == nil)
    }
    #endif

    /// Issue 39: `FileManager`'s ubiquity calls with Apple's signatures; a
    /// container that is not set up gives nil, and a path in none is refused
    /// with Foundation's error.
    @Test func fileManagerUbiquityCallsHaveApplesSignatures() throws {
        let _: (FileManager) -> (String?) -> URL? = FileManager.url(forUbiquityContainerIdentifier:)
        let _: KeyPath<FileManager, (any NSCoding & NSCopying & NSObjectProtocol)?> = \FileManager.ubiquityIdentityToken
        let _: (FileManager) -> (URL) -> Bool = FileManager.isUbiquitousItem(at:)
        let _: (FileManager) -> (Bool, URL, URL) throws -> Void = FileManager.setUbiquitous(_:itemAt:destinationURL:)
        let _: (FileManager) -> (URL) throws -> Void = FileManager.startDownloadingUbiquitousItem(at:)
        let _: (FileManager) -> (URL) throws -> Void = FileManager.evictUbiquitousItem(at:)
        let _: NSNotification.Name = .NSUbiquityIdentityDidChange
        #expect(FileManager.default.url(forUbiquityContainerIdentifier: "iCloud.org.ictkit.never-configured-\(UUID().uuidString)") == nil)
        let outside = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/a.icfnote")
        #expect(!FileManager.default.isUbiquitousItem(at: outside) || ProcessInfo.processInfo.environment["ICT_UBIQUITY_CONTAINER"] == "/")
        let error = try #require(throws: CocoaError.self) { try FileManager.default.evictUbiquitousItem(at: outside) }
        #expect(error.code == .fileWriteInvalidFileName)
        #expect(error.userInfo[NSFilePathErrorKey] as? String == outside.path)
    }
}
