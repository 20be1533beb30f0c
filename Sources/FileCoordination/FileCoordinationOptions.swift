/// How a coordinated read treats the item's presenters (Apple's
/// `NSFileCoordinator.ReadingOptions`, where they apply off Apple platforms).
public struct FileReadingOptions: OptionSet, Hashable, Sendable {
    /// The options' bits.
    public let rawValue: Int

    /// Makes a set of options from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Read the item as it is on disk: presenters are not asked to save
    /// their unsaved changes first.
    public static let withoutChanges = FileReadingOptions(rawValue: 1 << 0)
}

/// What a coordinated write does to the item, which decides what its
/// presenters are told (Apple's `NSFileCoordinator.WritingOptions`).
public struct FileWritingOptions: OptionSet, Hashable, Sendable {
    /// The options' bits.
    public let rawValue: Int

    /// Makes a set of options from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The write deletes the item: before it proceeds, presenters are asked
    /// to accommodate the deletion (`accommodatePresentedItemDeletion`);
    /// afterwards they are not told of a change.
    public static let forDeleting = FileWritingOptions(rawValue: 1 << 0)
    /// The write moves the item: report the new place with
    /// `FileCoordinator.itemMoved(from:to:)` inside the write, and the
    /// presenters are told `presentedItemDidMove(to:)` when it ends.
    public static let forMoving = FileWritingOptions(rawValue: 1 << 1)
    /// The write merges into what is there (a read-modify-write): presenters
    /// are asked to save their unsaved changes before it proceeds.
    public static let forMerging = FileWritingOptions(rawValue: 1 << 2)
    /// The write replaces the item wholly: presenters are not asked to save,
    /// and are told of the change when it ends.
    public static let forReplacing = FileWritingOptions(rawValue: 1 << 3)
}
