// Helpers shared by the runtime test suites.
#pragma once

#include <gtest/gtest.h>

#include "ascend_sim/acl.h"

// Expects an ACL call to succeed and shows the simulator's message otherwise.
#define EXPECT_ACL_OK(expr) EXPECT_EQ((expr), ACL_SUCCESS) << aclGetRecentErrMsg()
#define ASSERT_ACL_OK(expr) ASSERT_EQ((expr), ACL_SUCCESS) << aclGetRecentErrMsg()

// Expects a specific ACL status code.
#define EXPECT_ACL_ERR(expr, code) EXPECT_EQ((expr), (code)) << aclGetRecentErrMsg()

inline std::string lastAclMessage() { return aclGetRecentErrMsg(); }
