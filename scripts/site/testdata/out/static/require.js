/* stand-in for require.js in the tests */
