# tests/install/install.mk - the install lane: `make install DESTDIR=...`
# into a temporary tree, every file checked, the staged binary serving its
# page and running variable_layout from that prefix (tests/install/served.py),
# each man page rendered by man(1) without a warning, and `make uninstall`
# leaving no file behind.
TEST_LANES += test-install

test-install: $(BUILD)/numalab web/vendor/.stamp
	$(Q)echo "  INSTALL tests/install/test_install.sh"; \
	MAKE="$(MAKE)" BUILD=$(BUILD) sh tests/install/test_install.sh

.PHONY: test-install
