const x = "</script><!--";
