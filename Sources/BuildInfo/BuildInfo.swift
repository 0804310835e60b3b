/// What the build knows about itself.
public enum BuildInfo {
    /// Sextant's version: the git description at build time (`0.1.0`, `0.1.0-3-gabc1234` three commits
    /// after the tag `v0.1.0`, with `-dirty` for uncommitted changes), or, built from a tree without git,
    /// the latest version in `CHANGELOG.md`, else `unknown`. Written by `scripts/version` through the
    /// `GitVersion` build-tool plugin.
    public static let version: String = gitVersion
}
