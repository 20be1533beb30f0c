/// What a metadata query tells: once the result of the gathering, then
/// each change to the results (`NSMetadataQueryDidFinishGathering`, then
/// `NSMetadataQueryDidUpdate`).
public struct MetadataQueryUpdate: Sendable {
    /// Which notification this is.
    public enum Phase: Sendable, Equatable {
        /// The first update: every item found under the scopes (`added` holds them all).
        case gatheringFinished
        /// A later update: what was added, changed and removed since the last one.
        case updated
    }

    /// Which notification this is.
    public var phase: Phase
    /// Every result after this update, sorted as the query asks.
    public var results: [MetadataItem]
    /// The items that appeared, sorted.
    public var added: [MetadataItem]
    /// The items whose content, size, dates or conflict state changed, as they are now, sorted.
    public var changed: [MetadataItem]
    /// The items that went, as they were last seen, sorted.
    public var removed: [MetadataItem]
    /// The folders and packages under a scope that could not be listed or
    /// watched while making this update (their items may be missing, or
    /// their changes unseen), each naming its path.
    public var problems: [MetadataQueryError]

    /// An update; the query makes them.
    public init(
        phase: Phase, results: [MetadataItem], added: [MetadataItem] = [], changed: [MetadataItem] = [], removed: [MetadataItem] = [],
        problems: [MetadataQueryError] = []
    ) {
        self.phase = phase
        self.results = results
        self.added = added
        self.changed = changed
        self.removed = removed
        self.problems = problems
    }
}
