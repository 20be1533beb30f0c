/// The version of `ict`, defined here alone: `ict --version` prints it and
/// `make install` writes it into the man page's footer.
enum ICTKitVersion {
    static let current = "0.12.0"
}
