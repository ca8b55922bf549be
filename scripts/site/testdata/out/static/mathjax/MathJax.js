/* stand-in for MathJax.js in the tests */
