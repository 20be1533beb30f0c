import ArgumentParser
import ICTKitTooling
import PropertyList

/// The input options of the commands that read property lists.
struct InputOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The largest input read, in bytes, also from standard input, a pipe or a FIFO (default 2 GiB).",
            valueName: "bytes"))
    var maxInputSize: Int = PropertyListLimits.default.maximumInputSize

    func validate() throws {
        guard maxInputSize > 0 else { throw ValidationError("--max-input-size must be a positive number of bytes") }
    }

    /// The readers' limits with this input size.
    var limits: PropertyListLimits {
        var limits = PropertyListLimits.default
        limits.maximumInputSize = maxInputSize
        return limits
    }
}
