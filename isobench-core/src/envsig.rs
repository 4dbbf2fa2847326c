//! The environment signature, the `version` of a record whose
//! source has none: `python==<v>;arch=<arch>;image=<tag>;install_sha=<8 hex>`.

use sha2::{Digest, Sha256};

/// The first 8 hex digits of the SHA-256 of the install commands joined by `\n`.
pub fn install_sha(install_commands: &[String]) -> String {
    let digest = Sha256::digest(install_commands.join("\n").as_bytes());
    crate::codec::hex(&digest[..4])
}

/// `python==<python>;arch=<arch>;image=<image_tag>;install_sha=<install_sha>`.
pub fn environment_signature(
    python: &str,
    arch: &str,
    image_tag: &str,
    install_commands: &[String],
) -> String {
    format!(
        "python=={python};arch={arch};image={image_tag};install_sha={}",
        install_sha(install_commands)
    )
}

/// Whether `version` is an environment signature rather than a repository release: a
/// harness that looks releases up in its spec table cannot use it.
pub fn is_signature(version: &str) -> bool {
    version.starts_with("python==") || version.contains(";install_sha=")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_sha_is_the_sha256_prefix_of_the_joined_commands() {
        // The empty input's digest is the published constant e3b0c442...
        assert_eq!(install_sha(&[]), "e3b0c442");
        // sha256("abc") = ba7816bf 8f01cfea ... (FIPS 180-4 example)
        assert_eq!(install_sha(&["abc".to_owned()]), "ba7816bf");
        // Joined by a newline: sha256("a\nb") is not sha256("ab").
        assert_ne!(
            install_sha(&["a".to_owned(), "b".to_owned()]),
            install_sha(&["ab".to_owned()])
        );
    }

    #[test]
    fn signature_shape() {
        assert_eq!(
            environment_signature("3.9", "x86_64", "latest", &["abc".to_owned()]),
            "python==3.9;arch=x86_64;image=latest;install_sha=ba7816bf"
        );
    }
}
