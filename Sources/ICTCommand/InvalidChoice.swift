/// A value an option does not take. argument-parser prints `description` after its own
/// "The value 'TEXT' is invalid for '--option <name>': ".
struct InvalidChoice: Error, CustomStringConvertible {
    /// The values the option takes.
    let choices: [String]

    var description: String { "one of: " + choices.joined(separator: ", ") }
}
