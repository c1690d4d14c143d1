import CJewzruxinPublicSuffix

/// The Public Suffix List, as the system's libpsl knows it: which domains (`com`, `co.uk`,
/// `github.io`) are shared by unrelated owners, so that no cookie may be set for all of them.
///
/// libpsl is loaded at run time (`CJewzruxinPublicSuffix`), the way libcurl is: on Linux it is
/// wherever libcurl is, since libcurl links it. Where it can't be loaded (Apple platforms, a Linux
/// without it) there is no list, ``system`` is `nil`, and the cookie jar falls back to its own rule:
/// a domain of a single label (`com`) is no domain to share cookies in, but one of two (`co.uk`) is.
struct PublicSuffixList: Sendable {
    /// What was loaded: the library, its version and whether the list is the system's newest or
    /// the one built into the library.
    let description: String

    /// The system's list, loaded once on first use; `nil` when libpsl or its data can't be loaded.
    static let system: PublicSuffixList? = jz_psl_description().map { PublicSuffixList(description: String(cString: $0)) }

    private init(description: String) {
        self.description = description
    }

    /// Whether `domain` (lowercase, ASCII or punycode, without a leading dot) is a public suffix:
    /// listed in the ICANN or the private section, or a single label the list doesn't name.
    func isPublicSuffix(_ domain: String) -> Bool {
        jz_psl_is_public_suffix(domain) == 1
    }
}
