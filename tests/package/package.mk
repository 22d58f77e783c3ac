# tests/package/package.mk - the package lane: the Debian package built from
# a clean clone, lintian, and the .deb installed into a Debian 12 root that
# debootstrap makes once ($NUMALAB_TEST_CACHE keeps it, and apt's downloads):
# tests/package/test_package.sh. Needs root.
TEST_LANES += test-package

test-package:
	$(Q)echo "  DEB     tests/package/test_package.sh"; \
	sh tests/package/test_package.sh

.PHONY: test-package
